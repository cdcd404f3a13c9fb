import { appSlot } from '../../../module-api/app-state.ts';
import type { AppContext } from '../../../module-api/context.ts';
import { ident, sql, type Sql, indexName, type Queryable } from '../../../module-api/data.ts';

/** The classes of both friend models (§7.1), plus the block list. */
export const FOLLOWEE = '_Followee';
export const FOLLOWER = '_Follower';
export const REQUEST = '_FriendshipRequest';
export const BLOCKLIST = '_FriendBlocklist';
export const FRIEND_CLASSES = [FOLLOWEE, FOLLOWER, REQUEST, BLOCKLIST] as const;
export type FriendClass = (typeof FRIEND_CLASSES)[number];

/** The pointer field naming the other user of each class's rows ("user" is always the owner). */
export const OTHER_FIELD: Record<FriendClass, string> = {
  [FOLLOWEE]: 'followee',
  [FOLLOWER]: 'follower',
  [REQUEST]: 'friend',
  [BLOCKLIST]: 'blockedUser',
};

/** `data->'<field>'->>'objectId'`: the id inside a stored pointer (literal key, so indexes match). */
export function pointerId(field: 'user' | 'followee' | 'follower' | 'friend' | 'blockedUser', alias?: string): Sql {
  const col = alias ? sql`${ident(alias)}.data` : sql`data`;
  switch (field) {
    case 'user':
      return sql`(${col}->'user'->>'objectId')`;
    case 'followee':
      return sql`(${col}->'followee'->>'objectId')`;
    case 'follower':
      return sql`(${col}->'follower'->>'objectId')`;
    case 'friend':
      return sql`(${col}->'friend'->>'objectId')`;
    case 'blockedUser':
      return sql`(${col}->'blockedUser'->>'objectId')`;
  }
}

/**
 * Indexes every friend class needs: lookups by owner (every presence change asks "who are my
 * friends"), lookups by the other side (followers, incoming requests), and one UNIQUE pair index
 * that makes concurrent follows/accepts race-safe: the second insert of a pair fails (or is
 * skipped with ON CONFLICT) instead of duplicating a friendship.
 */
function indexStatements(cls: FriendClass): Sql[] {
  const t = ident(cls);
  const other = OTHER_FIELD[cls] as 'followee' | 'follower' | 'friend' | 'blockedUser';
  return [
    sql`CREATE INDEX IF NOT EXISTS ${ident(indexName(cls, 'user'))} ON ${t} (${pointerId('user')})`,
    sql`CREATE INDEX IF NOT EXISTS ${ident(indexName(cls, 'other'))} ON ${t} (${pointerId(other)})`,
    sql`CREATE UNIQUE INDEX IF NOT EXISTS ${ident(indexName(cls, 'pair'))} ON ${t} (${pointerId('user')}, ${pointerId(other)})`,
  ];
}

const INDEX_NAMES = FRIEND_CLASSES.flatMap((c) => ['user', 'other', 'pair'].map((k) => indexName(c, k)));

/**
 * True when every friend class and index already exists: the usual case after the first start.
 * Checked first because CREATE INDEX IF NOT EXISTS still locks the table against writes.
 */
async function allPresent(app: AppContext): Promise<boolean> {
  for (const cls of FRIEND_CLASSES) if (!(await app.classes.find(cls))) return false;
  const [{ n }] = await app.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_indexes
    WHERE schemaname = current_schema() AND indexname = ANY(${INDEX_NAMES}::text[])`);
  return n === INDEX_NAMES.length;
}

// One creation per app and process, not one per request. It is redone when a friend class has
// left the registry cache since (e.g. dropped through DELETE /1.1/schemas by the master key).
const READY = appSlot<{ promise: Promise<void>; done: boolean }>('friends.tables');

/**
 * Creates the friend classes (table, catalogue row) and their indexes when first used. Runs in
 * its own transaction before the caller's write, so that DDL never widens a request's
 * transaction; IF NOT EXISTS and an advisory lock make it safe across processes.
 */
export function ensureFriendTables(app: AppContext): Promise<void> {
  const have = app.scope.get(READY);
  if (have && (!have.done || FRIEND_CLASSES.every((c) => app.classes.cached(c)))) return have.promise;
  const state = { promise: Promise.resolve(), done: false };
  state.promise = allPresent(app)
    .then((present) => present || app.db.transaction(async (tx) => {
      // Serialises the DDL across processes: two concurrent CREATE INDEX IF NOT EXISTS of the
      // same name can both pass the existence check and one then fails on pg_class (23505).
      await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${'larder.friend.tables.' + app.db.schema}))`);
      for (const cls of FRIEND_CLASSES) {
        await app.classes.ensureClass(tx, cls);
        for (const stmt of indexStatements(cls)) await tx.query(stmt);
      }
      return true;
    }))
    .then(async () => {
      for (const cls of FRIEND_CLASSES) {
        const s = await app.classes.find(cls);
        if (s) app.classes.publish(s);
      }
      state.done = true;
    });
  state.promise.catch(() => app.scope.release(READY, state));
  app.scope.put(READY, state);
  return state.promise;
}

/**
 * For reads: false when no friendship was ever written (no table, no rows, nothing to create);
 * otherwise makes sure every friend class and index exists (a class created another way, e.g.
 * by a master-key import, gets them on first use) and answers true.
 */
export async function friendTablesReady(app: AppContext, q: Queryable = app.db): Promise<boolean> {
  if ((await app.classes.find(FOLLOWEE, q)) === undefined) return false;
  await ensureFriendTables(app);
  return true;
}
