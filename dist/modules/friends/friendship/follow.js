import { ApiError } from '../../../errors/api-error.js';
import { refuseIfBlocked } from './block-rules.js';
import { friendshipAcl } from './friend-acl.js';
import { requireUsers } from './friend-guard.js';
import { checkLimit, countOwned, findRow, updateRow, upsertRow, deleteRow } from './friend-rows.js';
import { FOLLOWEE, FOLLOWER } from './friend-tables.js';
import { friendTransaction } from './friend-tx.js';
import { MAX_FOLLOWEES } from './limits.js';
const BOOLEAN = { type: 'Boolean' };
/**
 * Writes one direction of a follow, `a` follows `b`: `_Followee {user: a, followee: b}` and
 * `_Follower {user: b, follower: a}`, both with the attributes. `friendStatus` of a follow row
 * says whether the follow is mutual, kept true on both directions while both exist.
 * Returns the _Followee row; an existing follow only gets the new attributes (follow is idempotent).
 */
async function followOne(ft, a, b, attrs) {
    const mode = ft.app.settings.friendshipACL;
    const existing = await findRow(ft, { cls: FOLLOWEE, owner: a, other: b });
    if (!existing)
        await checkLimit(ft, FOLLOWEE, a, MAX_FOLLOWEES, 'followees');
    const back = await findRow(ft, { cls: FOLLOWEE, owner: b, other: a });
    const mutual = back !== undefined;
    const row = await upsertRow(ft, { cls: FOLLOWEE, owner: a, other: b, fields: { friendStatus: mutual }, fieldTypes: { friendStatus: BOOLEAN }, attrs, acl: friendshipAcl(mode, a, b) }, 'merge');
    await upsertRow(ft, { cls: FOLLOWER, owner: b, other: a, fields: {}, fieldTypes: {}, attrs, acl: friendshipAcl(mode, b, a) }, 'merge');
    if (mutual && back.friendStatus !== true)
        await updateRow(ft, { cls: FOLLOWEE, owner: b, other: a }, { friendStatus: true }, {});
    return row.row;
}
/**
 * Follow (POST /1.1/users/<id>/friendship/<target>, POST /friend/v2/follow). With the app
 * option autoFollowBack the target follows back in the same transaction, unless it already
 * reached its followee limit (the follow itself still succeeds then).
 */
export async function follow(ctx, a, b, attrs) {
    if (a === b)
        throw new ApiError('badRequest', 'A user cannot follow itself.');
    return friendTransaction(ctx.app, [a, b], async (ft) => {
        await requireUsers(ft.tx, [a, b]);
        await refuseIfBlocked(ft.tx, a, b);
        const row = await followOne(ft, a, b, attrs);
        if (!ctx.app.settings.autoFollowBack)
            return row;
        const backExists = await findRow(ft, { cls: FOLLOWEE, owner: b, other: a });
        if (backExists || (await countOwned(ft, FOLLOWEE, b)) >= MAX_FOLLOWEES)
            return row;
        await followOne(ft, b, a, attrs);
        return (await findRow(ft, { cls: FOLLOWEE, owner: a, other: b })) ?? row;
    });
}
/** Removes `a` follows `b` (both rows) inside a transaction; false when there was no follow. */
export async function unfollowIn(ft, a, b) {
    const had = await deleteRow(ft, { cls: FOLLOWEE, owner: a, other: b });
    await deleteRow(ft, { cls: FOLLOWER, owner: b, other: a });
    if (had)
        await updateRow(ft, { cls: FOLLOWEE, owner: b, other: a }, { friendStatus: false }, {});
    return had;
}
/** Unfollow (DELETE /1.1/users/<id>/friendship/<target>, POST /friend/v2/unfollow); 221 when absent. */
export async function unfollow(ctx, a, b) {
    const had = await friendTransaction(ctx.app, [a, b], (ft) => unfollowIn(ft, a, b));
    if (!had)
        throw new ApiError('friendshipNotFound', `User ${a} does not follow user ${b}.`);
}
//# sourceMappingURL=follow.js.map