/**
 * Who is online, shared by every Larder process of one database. A user is online while some
 * live process holds at least one of its WebSocket connections: `_larder_online` has one row per
 * (user, process), `_larder_friend_processes` one lease per process. A process renews its lease
 * every second (a third of `friendsLeaseMs` if shorter); rows of a process whose lease ran out (it crashed, or lost
 * the database) no longer count, and the next sweep of any process deletes them and tells the
 * users' friends they went offline.
 *
 * Changes of one user are serialised by a transaction-scoped advisory lock on the user, so that
 * "was the user online anywhere else?" and the insert/delete are one step: two processes that
 * connect the same user at once produce exactly one "online" notification.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { sql, type Queryable } from '../../../module-api/data.ts';

/** Live online rows: their process still holds its lease. */
const LIVE = sql`EXISTS (SELECT 1 FROM _larder_friend_processes p WHERE p.process_id = o.process_id AND p.lease_until > now())`;

function lockUser(tx: Queryable, app: AppContext, userId: string) {
  return tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${`larder.online.${app.db.schema}.${userId}`}))`);
}

async function onlineElsewhere(tx: Queryable, userId: string, processId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM _larder_online o WHERE o.user_id = ${userId} AND o.process_id <> ${processId} AND ${LIVE} LIMIT 1`);
  return rows.length > 0;
}

/** Registers (or renews) this process's lease. Returns false when its row had gone (swept as dead). */
export async function renewLease(app: AppContext, processId: string, leaseMs: number): Promise<boolean> {
  const updated = await app.db.query(sql`UPDATE _larder_friend_processes SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE process_id = ${processId} RETURNING 1`);
  if (updated.length > 0) return true;
  await app.db.query(sql`INSERT INTO _larder_friend_processes (process_id, lease_until) VALUES (${processId}, now() + ${leaseMs} * interval '1 millisecond')
    ON CONFLICT (process_id) DO UPDATE SET lease_until = EXCLUDED.lease_until`);
  return false;
}

/** Marks the user as connected to this process; true when it was offline everywhere before. */
export async function markConnected(app: AppContext, userId: string, processId: string): Promise<boolean> {
  return app.db.transaction(async (tx) => {
    await lockUser(tx, app, userId);
    const elsewhere = await onlineElsewhere(tx, userId, processId);
    await tx.query(sql`INSERT INTO _larder_online (user_id, process_id) VALUES (${userId}, ${processId}) ON CONFLICT DO NOTHING`);
    return !elsewhere;
  });
}

/** Marks the user as gone from this process; true when it is now offline everywhere. */
export async function markDisconnected(app: AppContext, userId: string, processId: string): Promise<boolean> {
  return app.db.transaction(async (tx) => {
    await lockUser(tx, app, userId);
    await tx.query(sql`DELETE FROM _larder_online WHERE user_id = ${userId} AND process_id = ${processId}`);
    return !(await onlineElsewhere(tx, userId, processId));
  });
}

/**
 * Deletes the rows of processes whose lease ran out (and this process's own, when `self` is
 * given at shutdown) and returns the users that are now offline everywhere. Each dead process is
 * claimed by one sweeper (DELETE ... RETURNING under the row lock), so one process notifies.
 */
export async function sweepDead(app: AppContext): Promise<string[]> {
  const dead = await app.db.query<{ process_id: string }>(sql`DELETE FROM _larder_friend_processes WHERE lease_until <= now() RETURNING process_id`);
  const offline: string[] = [];
  for (const { process_id } of dead) offline.push(...(await dropProcess(app, process_id)));
  return offline;
}

/** Removes every row of one process; returns its users that are now offline everywhere. */
export async function dropProcess(app: AppContext, processId: string): Promise<string[]> {
  await app.db.query(sql`DELETE FROM _larder_friend_processes WHERE process_id = ${processId}`);
  const rows = await app.db.query<{ user_id: string }>(sql`DELETE FROM _larder_online WHERE process_id = ${processId} RETURNING user_id`);
  const offline: string[] = [];
  for (const { user_id } of rows) {
    const still = await app.db.transaction(async (tx) => {
      await lockUser(tx, app, user_id);
      return onlineElsewhere(tx, user_id, processId);
    });
    if (!still) offline.push(user_id);
  }
  return offline;
}

/**
 * Stored presence values and online flag of each user, in one statement (the read path of
 * rich-presence/users and the friend lists): users without a presence row still get their flag.
 */
export async function presenceAndOnline(app: AppContext, userIds: readonly string[]): Promise<Map<string, { online: boolean; fields?: Record<string, string> }>> {
  if (userIds.length === 0) return new Map();
  const rows = await app.db.query<{ id: string; fields: unknown; online: boolean }>(sql`SELECT u.id, p.fields,
      EXISTS (SELECT 1 FROM _larder_online o WHERE o.user_id = u.id AND ${LIVE}) AS online
    FROM unnest(${[...userIds]}::text[]) AS u(id) LEFT JOIN _larder_presence p ON p.user_id = u.id`);
  return new Map(rows.map((r) => [r.id, { online: r.online, fields: r.fields === null || r.fields === undefined ? undefined : stringFields(r.fields) }]));
}

function stringFields(v: unknown): Record<string, string> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
