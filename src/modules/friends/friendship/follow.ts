import type { RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import type { WireObject } from '../../../module-api/data.ts';
import { refuseIfBlocked } from './block-rules.ts';
import { friendshipAcl } from './friend-acl.ts';
import type { FriendAttrs } from './friend-attrs.ts';
import { requireUsers } from './friend-guard.ts';
import { checkLimit, countOwned, findRow, updateRow, upsertRow, deleteRow } from './friend-rows.ts';
import { FOLLOWEE, FOLLOWER } from './friend-tables.ts';
import { friendTransaction, type FriendTx } from './friend-tx.ts';
import { MAX_FOLLOWEES } from './limits.ts';
import { friendsSettings } from '../friends-settings.ts';
import { friendsError } from '../friends-errors.ts';

const BOOLEAN = { type: 'Boolean' } as const;

/**
 * Writes one direction of a follow, `a` follows `b`: `_Followee {user: a, followee: b}` and
 * `_Follower {user: b, follower: a}`, both with the attributes. `friendStatus` of a follow row
 * says whether the follow is mutual, kept true on both directions while both exist.
 * Returns the _Followee row; an existing follow only gets the new attributes (follow is idempotent).
 */
async function followOne(ft: FriendTx, a: string, b: string, attrs: FriendAttrs): Promise<WireObject> {
  const mode = friendsSettings(ft.app).friendshipACL;
  const existing = await findRow(ft, { cls: FOLLOWEE, owner: a, other: b });
  if (!existing) await checkLimit(ft, FOLLOWEE, a, MAX_FOLLOWEES, 'followees');
  const back = await findRow(ft, { cls: FOLLOWEE, owner: b, other: a });
  const mutual = back !== undefined;
  const row = await upsertRow(ft, { cls: FOLLOWEE, owner: a, other: b, fields: { friendStatus: mutual }, fieldTypes: { friendStatus: BOOLEAN }, attrs, acl: friendshipAcl(mode, a, b) }, 'merge');
  await upsertRow(ft, { cls: FOLLOWER, owner: b, other: a, fields: {}, fieldTypes: {}, attrs, acl: friendshipAcl(mode, b, a) }, 'merge');
  if (mutual && back.friendStatus !== true) await updateRow(ft, { cls: FOLLOWEE, owner: b, other: a }, { friendStatus: true }, {});
  return row.row;
}

/**
 * Follow (POST /1.1/users/<id>/friendship/<target>, POST /friend/v2/follow). With the app
 * option autoFollowBack the target follows back in the same transaction, unless it already
 * reached its followee limit (the follow itself still succeeds then).
 */
export async function follow(ctx: RequestContext, a: string, b: string, attrs: FriendAttrs): Promise<WireObject> {
  if (a === b) throw new ApiError('badRequest', 'A user cannot follow itself.');
  return friendTransaction(ctx, [a, b], async (ft) => {
    await requireUsers(ft.tx, [a, b]);
    await refuseIfBlocked(ft.tx, a, b);
    const row = await followOne(ft, a, b, attrs);
    if (!friendsSettings(ctx.app).autoFollowBack) return row;
    const backExists = await findRow(ft, { cls: FOLLOWEE, owner: b, other: a });
    if (backExists || (await countOwned(ft, FOLLOWEE, b)) >= MAX_FOLLOWEES) return row;
    await followOne(ft, b, a, attrs);
    return (await findRow(ft, { cls: FOLLOWEE, owner: a, other: b })) ?? row;
  });
}

/** Removes `a` follows `b` (both rows) inside a transaction; false when there was no follow. */
export async function unfollowIn(ft: FriendTx, a: string, b: string): Promise<boolean> {
  const had = await deleteRow(ft, { cls: FOLLOWEE, owner: a, other: b });
  await deleteRow(ft, { cls: FOLLOWER, owner: b, other: a });
  if (had) await updateRow(ft, { cls: FOLLOWEE, owner: b, other: a }, { friendStatus: false }, {});
  return had;
}

/** Unfollow (DELETE /1.1/users/<id>/friendship/<target>, POST /friend/v2/unfollow); 221 when absent. */
export async function unfollow(ctx: RequestContext, a: string, b: string): Promise<void> {
  const had = await friendTransaction(ctx, [a, b], (ft) => unfollowIn(ft, a, b));
  if (!had) throw friendsError('friendshipNotFound', `User ${a} does not follow user ${b}.`);
}
