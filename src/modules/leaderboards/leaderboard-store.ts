/**
 * Leaderboards themselves: create, read (with the automatic reset of an expired version),
 * change, reset by hand and delete. A version ends by a reset (by hand or when `expiredAt`
 * passes); its entries stay, queryable as the previous version and as an archive, until more
 * than MAX_ARCHIVES newer archives exist.
 */
import { randomBytes } from 'node:crypto';
import { nowOf, type AppContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { newObjectId, toIso, sql, type Queryable } from '../../module-api/data.ts';
import { ensureLeaderboardTables } from './leaderboard-tables.ts';
import { nextReset, periodStart, type LeaderboardOrder, type UpdateStrategy, type VersionChangeInterval } from './leaderboard-rules.ts';
import { leaderboardError } from './leaderboards-errors.ts';

/** Archives kept per leaderboard; older ones (and their entries) are dropped, as LeanCloud kept 60. */
export const MAX_ARCHIVES = 60;

/** A leaderboard row. */
export interface Board {
  name: string;
  object_id: string;
  sort_order: LeaderboardOrder;
  update_strategy: UpdateStrategy;
  version_change_interval: VersionChangeInterval;
  version: number;
  activated_at: unknown;
  expired_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const date = (v: unknown) => ({ __type: 'Date', iso: toIso(v) });

/** The wire form of a leaderboard, as the REST guide shows it (`expiredAt` only when it resets by itself). */
export function boardJson(b: Board): Record<string, unknown> {
  return {
    objectId: b.object_id,
    statisticName: b.name,
    order: b.sort_order,
    updateStrategy: b.update_strategy,
    version: b.version,
    versionChangeInterval: b.version_change_interval,
    ...(b.expired_at ? { expiredAt: date(b.expired_at) } : {}),
    activatedAt: date(b.activated_at),
    createdAt: toIso(b.created_at),
    updatedAt: toIso(b.updated_at),
  };
}

function notFound(name: string): ApiError {
  return leaderboardError('leaderboardNotFound', `Leaderboard ${name} not found.`);
}

/** Creates a leaderboard; an existing name is an error. */
export async function createBoard(app: AppContext, name: string, o: { order: LeaderboardOrder; updateStrategy: UpdateStrategy; interval: VersionChangeInterval }): Promise<Board> {
  await ensureLeaderboardTables(app.db);
  const now = nowOf(app);
  const rows = await app.db.query<Board>(sql`INSERT INTO _larder_leaderboards
      (name, object_id, sort_order, update_strategy, version_change_interval, version, activated_at, expired_at, created_at, updated_at)
    VALUES (${name}, ${newObjectId(now.getTime())}, ${o.order}, ${o.updateStrategy}, ${o.interval}, 0, ${now.toISOString()}::timestamptz,
      ${nextReset(o.interval, now)?.toISOString() ?? null}::timestamptz, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
    ON CONFLICT (name) DO NOTHING RETURNING *`);
  if (!rows[0]) throw leaderboardError('leaderboardExists', `A leaderboard named ${name} already exists.`);
  return rows[0];
}

/**
 * Ends the current version inside `tx` (the row is locked by the caller): records its archive,
 * moves to the next version, drops archives beyond MAX_ARCHIVES with their entries.
 */
async function endVersion(tx: Queryable, b: Board, endedAt: Date, next: { activatedAt: Date; expiredAt: Date | undefined }): Promise<Board> {
  await tx.query(sql`INSERT INTO _larder_leaderboard_archives (object_id, name, version, file_key, activated_at, deactivated_at, created_at)
    VALUES (${newObjectId(endedAt.getTime())}, ${b.name}, ${b.version}, ${randomBytes(12).toString('hex') + '.csv'}, ${toIso(b.activated_at)}::timestamptz,
      ${endedAt.toISOString()}::timestamptz, ${endedAt.toISOString()}::timestamptz)
    ON CONFLICT (name, version) DO NOTHING`);
  const dropped = await tx.query<{ version: number }>(sql`DELETE FROM _larder_leaderboard_archives WHERE name = ${b.name} AND version <= ${b.version - MAX_ARCHIVES} RETURNING version`);
  if (dropped.length) await tx.query(sql`DELETE FROM _larder_leaderboard_entries WHERE name = ${b.name} AND version <= ${b.version - MAX_ARCHIVES}`);
  const rows = await tx.query<Board>(sql`UPDATE _larder_leaderboards SET version = version + 1, activated_at = ${next.activatedAt.toISOString()}::timestamptz,
      expired_at = ${next.expiredAt?.toISOString() ?? null}::timestamptz, updated_at = ${endedAt.toISOString()}::timestamptz
    WHERE name = ${b.name} RETURNING *`);
  return rows[0];
}

/**
 * The leaderboard row locked for the transaction. FOR UPDATE (changes, resets) also performs an
 * automatic reset that is due. FOR SHARE (statistic updates, which run concurrently) does not:
 * callers read the board with readBoard first, which resets it in its own transaction, so a
 * shared lock never has to be upgraded (two upgrading sharers would deadlock).
 */
export async function lockBoard(tx: Queryable, app: AppContext, name: string, mode: 'update' | 'share'): Promise<Board> {
  const rows = mode === 'update'
    ? await tx.query<Board>(sql`SELECT * FROM _larder_leaderboards WHERE name = ${name} FOR UPDATE`)
    : await tx.query<Board>(sql`SELECT * FROM _larder_leaderboards WHERE name = ${name} FOR SHARE`);
  const b = rows[0];
  if (!b) throw notFound(name);
  return mode === 'update' ? rollOver(tx, app, b) : b;
}

function expired(b: Board, now: Date): boolean {
  return b.expired_at !== null && b.expired_at !== undefined && new Date(toIso(b.expired_at)) <= now;
}

/**
 * The automatic reset: a version whose `expiredAt` passed ends at that time; the new one starts
 * at the beginning of the current period. When several periods passed unseen, one new version
 * is made (empty versions are not recorded).
 */
async function rollOver(tx: Queryable, app: AppContext, b: Board): Promise<Board> {
  const now = nowOf(app);
  if (!expired(b, now)) return b;
  const interval = b.version_change_interval;
  return endVersion(tx, b, new Date(toIso(b.expired_at)), { activatedAt: periodStart(interval, now), expiredAt: nextReset(interval, now) });
}

/** The current state of a leaderboard (reset first when its version expired); 404 when absent. */
export async function readBoard(app: AppContext, name: string): Promise<Board> {
  await ensureLeaderboardTables(app.db);
  const rows = await app.db.query<Board>(sql`SELECT * FROM _larder_leaderboards WHERE name = ${name}`);
  if (!rows[0]) throw notFound(name);
  if (!expired(rows[0], nowOf(app))) return rows[0];
  return app.db.transaction((tx) => lockBoard(tx, app, name, 'update'));
}

/** Performs every automatic reset that is due (before reads that join many leaderboards). */
export async function rollDue(app: AppContext): Promise<void> {
  const due = await app.db.query<{ name: string }>(sql`SELECT name FROM _larder_leaderboards WHERE expired_at <= ${nowOf(app).toISOString()}::timestamptz`);
  for (const d of due) await readBoard(app, d.name);
}

/** The leaderboards of these names, current (unknown names are left out). */
export async function readBoards(app: AppContext, names: readonly string[]): Promise<Board[]> {
  await ensureLeaderboardTables(app.db);
  const rows = await app.db.query<Board>(sql`SELECT * FROM _larder_leaderboards WHERE name = ANY(${[...names]}::text[])`);
  const now = nowOf(app);
  return Promise.all(rows.map((r) => (expired(r, now) ? readBoard(app, r.name) : r)));
}

/** Changes order, update strategy or interval (a new interval also moves `expiredAt`). */
export async function changeBoard(app: AppContext, name: string, change: { order?: LeaderboardOrder; updateStrategy?: UpdateStrategy; interval?: VersionChangeInterval }): Promise<Board> {
  await ensureLeaderboardTables(app.db);
  return app.db.transaction(async (tx) => {
    const b = await lockBoard(tx, app, name, 'update');
    const now = nowOf(app);
    const order = change.order ?? b.sort_order;
    const interval = change.interval ?? b.version_change_interval;
    const expiredAt = change.interval ? nextReset(interval, now)?.toISOString() ?? null : b.expired_at === null ? null : toIso(b.expired_at);
    // The index orders by sort_key; flipping the order flips the sign of every entry's key.
    if (order !== b.sort_order) await tx.query(sql`UPDATE _larder_leaderboard_entries SET sort_key = -sort_key WHERE name = ${name}`);
    const rows = await tx.query<Board>(sql`UPDATE _larder_leaderboards SET sort_order = ${order}, update_strategy = ${change.updateStrategy ?? b.update_strategy},
        version_change_interval = ${interval}, expired_at = ${expiredAt}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
      WHERE name = ${name} RETURNING *`);
    return rows[0];
  });
}

/** Resets by hand (`incrementVersion`): the current version ends now, whatever the interval. */
export async function resetBoard(app: AppContext, name: string): Promise<Board> {
  await ensureLeaderboardTables(app.db);
  return app.db.transaction(async (tx) => {
    const b = await lockBoard(tx, app, name, 'update');
    const now = nowOf(app);
    return endVersion(tx, b, now, { activatedAt: now, expiredAt: nextReset(b.version_change_interval, now) });
  });
}

/** Deletes a leaderboard with every version's entries and archives. */
export async function deleteBoard(app: AppContext, name: string): Promise<void> {
  await ensureLeaderboardTables(app.db);
  await app.db.transaction(async (tx) => {
    const gone = await tx.query(sql`DELETE FROM _larder_leaderboards WHERE name = ${name} RETURNING name`);
    if (!gone[0]) throw notFound(name);
    await tx.query(sql`DELETE FROM _larder_leaderboard_entries WHERE name = ${name}`);
    await tx.query(sql`DELETE FROM _larder_leaderboard_archives WHERE name = ${name}`);
  });
}
