import type { RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import type { WireObject } from '../../../module-api/data.ts';
import { requireUsers } from './friend-guard.ts';
import { checkLimit, deleteRow, findRow, upsertRow } from './friend-rows.ts';
import { BLOCKLIST } from './friend-tables.ts';
import { friendTransaction } from './friend-tx.ts';
import { unfollowIn } from './follow.ts';
import { MAX_BLOCKED } from './limits.ts';
import { friendsSettings } from '../friends-settings.ts';
import { friendsError } from '../friends-errors.ts';

/**
 * Puts `b` on `a`'s block list (`_FriendBlocklist {user: a, blockedUser: b}`). The row is
 * readable by `a` only whatever friendshipACL says: a block list is nobody else's business.
 * In the follow model blocking also ends the follows between the two, both ways (TDS
 * behaviour); in the mutual model the friendship stays but is hidden from `a`'s friend lists
 * and from presence notifications until unblocked. Blocking twice is not an error.
 */
export async function block(ctx: RequestContext, a: string, b: string): Promise<WireObject> {
  if (a === b) throw new ApiError('badRequest', 'A user cannot block itself.');
  return friendTransaction(ctx, [a, b], async (ft) => {
    await requireUsers(ft.tx, [b]);
    const existing = await findRow(ft, { cls: BLOCKLIST, owner: a, other: b });
    if (existing) return existing;
    await checkLimit(ft, BLOCKLIST, a, MAX_BLOCKED, 'blocked users');
    const row = await upsertRow(ft, { cls: BLOCKLIST, owner: a, other: b, fields: {}, fieldTypes: {}, attrs: { data: {}, types: {} }, acl: { [a]: { read: true, write: true } } }, 'keep');
    if (friendsSettings(ctx.app).friendModel === 'follow') {
      await unfollowIn(ft, a, b);
      await unfollowIn(ft, b, a);
    }
    return row.row;
  });
}

/** Takes `b` off `a`'s block list; 221 when it was not on it. */
export async function unblock(ctx: RequestContext, a: string, b: string): Promise<void> {
  const had = await friendTransaction(ctx, [a, b], (ft) => deleteRow(ft, { cls: BLOCKLIST, owner: a, other: b }));
  if (!had) throw friendsError('friendshipNotFound', `User ${b} is not on the block list.`);
}
