import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';
import { friendIdsOf } from '../friendship/friend-ids.ts';
import { pointerId } from '../friendship/friend-tables.ts';
import { friendsSettings } from '../friends-settings.ts';

/** The users among `ids` that `userId` blocked or that blocked `userId` (none before any block). */
async function blockedEitherWay(app: AppContext, userId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length || (await app.classes.find('_FriendBlocklist')) === undefined) return new Set();
  const rows = await app.db.query<{ id: string }>(sql`
    SELECT ${pointerId('blockedUser')} AS id FROM "_FriendBlocklist" WHERE ${pointerId('user')} = ${userId} AND ${pointerId('blockedUser')} = ANY(${[...ids]}::text[])
    UNION
    SELECT ${pointerId('user')} AS id FROM "_FriendBlocklist" WHERE ${pointerId('blockedUser')} = ${userId} AND ${pointerId('user')} = ANY(${[...ids]}::text[])`);
  return new Set(rows.map((r) => r.id));
}

/**
 * Whose presence and online flag `userId` may read among `ids` (app setting
 * `richPresenceAudience`, docs/friends.md): with "users" (the default, as the spec says rich
 * presence lets clients read the presence of users) everyone except users blocked either way;
 * with "friends" only its friends (friend-ids.ts). A user always sees itself.
 */
export async function presenceVisibleTo(app: AppContext, userId: string, ids: readonly string[]): Promise<Set<string>> {
  if (friendsSettings(app).richPresenceAudience === 'friends') {
    const friends = new Set(await friendIdsOf(app, userId, ids));
    friends.add(userId);
    return friends;
  }
  const blocked = await blockedEitherWay(app, userId, ids);
  return new Set(ids.filter((id) => !blocked.has(id)));
}
