import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';
import { friendTablesReady, pointerId } from './friend-tables.ts';
import { friendsSettings } from '../friends-settings.ts';

/**
 * Users who receive `userId`'s online/presence notifications and may read its presence: its
 * friends. Mutual model: the followees of its accepted friendships (friendStatus true). Follow
 * model: users who follow it and whom it follows (§7.1). Blocked users (either direction) are
 * left out. No friend model chosen, or no friend table yet: nobody.
 * Runs on every presence change, so it is one indexed query (friend-tables.ts). `among`
 * narrows the answer to those ids (a visibility check of a few users need not list them all).
 */
export async function friendIdsOf(app: AppContext, userId: string, among?: readonly string[]): Promise<string[]> {
  const model = friendsSettings(app).friendModel;
  if (model === '' || !(await friendTablesReady(app))) return [];
  // Users blocked either way, fetched once (hashed) rather than probed per friend row.
  const notBlocked = sql`${pointerId('followee', 'a')} <> ALL (ARRAY(
      SELECT ${pointerId('blockedUser')} FROM "_FriendBlocklist" WHERE ${pointerId('user')} = ${userId} AND ${pointerId('blockedUser')} IS NOT NULL
      UNION ALL
      SELECT ${pointerId('user')} FROM "_FriendBlocklist" WHERE ${pointerId('blockedUser')} = ${userId} AND ${pointerId('user')} IS NOT NULL))`;
  const only = among === undefined ? sql`` : sql` AND ${pointerId('followee', 'a')} = ANY(${[...among]}::text[])`;
  const rows =
    model === 'mutual'
      ? await app.db.query<{ id: string }>(sql`SELECT ${pointerId('followee', 'a')} AS id FROM "_Followee" a
          WHERE ${pointerId('user', 'a')} = ${userId} AND a.data->'friendStatus' = 'true'::jsonb AND ${notBlocked}${only}`)
      : await app.db.query<{ id: string }>(sql`SELECT ${pointerId('followee', 'a')} AS id FROM "_Followee" a
          JOIN "_Followee" r ON ${pointerId('user', 'r')} = ${pointerId('followee', 'a')} AND ${pointerId('followee', 'r')} = ${userId}
          WHERE ${pointerId('user', 'a')} = ${userId} AND ${notBlocked}${only}`);
  return [...new Set(rows.map((r) => r.id).filter((id): id is string => typeof id === 'string'))];
}
