import type { RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import type { WireObject } from '../../../module-api/data.ts';
import type { FriendAttrs } from './friend-attrs.ts';
import { followsApply } from './friend-guard.ts';
import { deleteRow, updateRow } from './friend-rows.ts';
import { FOLLOWEE, FOLLOWER, REQUEST } from './friend-tables.ts';
import { friendTransaction } from './friend-tx.ts';
import { friendsError } from '../friends-errors.ts';

/**
 * PUT /1.1/users/<id>/friendship/<target>: changes the attributes of the caller's half of a
 * friendship (mutual) or of a follow (follow model; the `_Follower` copy too, as follow copies
 * them). Returns the updated `_Followee` row; 221 when there is none.
 */
export async function updateFriendship(ctx: RequestContext, a: string, b: string, attrs: FriendAttrs): Promise<WireObject> {
  if (Object.keys(attrs.data).length === 0) throw new ApiError('badRequest', 'No friendship attributes to update.');
  const row = await friendTransaction(ctx, [a, b], async (ft) => {
    const r = await updateRow(ft, { cls: FOLLOWEE, owner: a, other: b }, attrs.data, attrs.types);
    if (r && followsApply(ctx.app)) await updateRow(ft, { cls: FOLLOWER, owner: b, other: a }, attrs.data, attrs.types);
    return r;
  });
  if (!row) throw friendsError('friendshipNotFound', `User ${a} has no friendship with user ${b}.`);
  return row;
}

/**
 * Deletes a friend (mutual model): both halves of the friendship and the requests between
 * the two users, so that either may send a new request later. 221 when `a` has no row for `b`.
 */
export async function deleteFriend(ctx: RequestContext, a: string, b: string): Promise<void> {
  const had = await friendTransaction(ctx, [a, b], async (ft) => {
    const mine = await deleteRow(ft, { cls: FOLLOWEE, owner: a, other: b });
    if (!mine) return false;
    await deleteRow(ft, { cls: FOLLOWEE, owner: b, other: a });
    await deleteRow(ft, { cls: REQUEST, owner: a, other: b });
    await deleteRow(ft, { cls: REQUEST, owner: b, other: a });
    return true;
  });
  if (!had) throw friendsError('friendshipNotFound', `User ${a} has no friendship with user ${b}.`);
}
