import { ApiError } from '../../../module-api/errors.ts';
import { sql, type Queryable } from '../../../module-api/data.ts';
import { pointerId } from './friend-tables.ts';

/** True when `blocker` has `blocked` on its block list. */
export async function hasBlocked(q: Queryable, blocker: string, blocked: string): Promise<boolean> {
  const rows = await q.query<{ one: number }>(sql`SELECT 1 AS one FROM "_FriendBlocklist"
    WHERE ${pointerId('user')} = ${blocker} AND ${pointerId('blockedUser')} = ${blocked} LIMIT 1`);
  return rows.length > 0;
}

/**
 * Refuses a friend request or follow between users where either blocked the other. The
 * message does not say who blocked whom beyond what the caller already knows: a blocked user
 * learns only that it cannot reach the other.
 */
export async function refuseIfBlocked(q: Queryable, actor: string, target: string): Promise<void> {
  if (await hasBlocked(q, actor, target)) throw new ApiError('forbidden', 'You blocked this user; unblock it first.');
  if (await hasBlocked(q, target, actor)) throw new ApiError('forbidden', 'This user does not accept friend requests or follows from you.');
}

/** The ids a user blocked (at most MAX_BLOCKED), for filtering friend lists. */
export async function blockedIds(q: Queryable, blocker: string): Promise<string[]> {
  const rows = await q.query<{ id: string }>(sql`SELECT ${pointerId('blockedUser')} AS id FROM "_FriendBlocklist" WHERE ${pointerId('user')} = ${blocker}`);
  return rows.map((r) => r.id);
}
