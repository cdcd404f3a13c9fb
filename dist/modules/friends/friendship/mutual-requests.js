import { ApiError } from '../../../errors/api-error.js';
import { isPlainObject } from '../../../objects/decode-value.js';
import { isValidObjectId } from '../../../objects/object-id.js';
import { OBJECT_COLUMNS } from '../../../objects/object-row.js';
import { sql } from '../../../sql/fragment.js';
import { toIso } from '../../../objects/timestamps.js';
import { notifyUsers } from '../realtime/notify.js';
import { refuseIfBlocked } from './block-rules.js';
import { friendshipAcl, requestAcl } from './friend-acl.js';
import { attrsOfBody } from './friend-attrs.js';
import { friendCaller, requireUsers, targetId } from './friend-guard.js';
import { findRow, upsertRow } from './friend-rows.js';
import { ensureFriendTables, FOLLOWEE, REQUEST } from './friend-tables.js';
import { friendTransaction } from './friend-tx.js';
const BOOLEAN = { type: 'Boolean' };
const STRING = { type: 'String' };
function pointerTarget(v, what) {
    if (!isPlainObject(v) || v.__type !== 'Pointer' || v.className !== '_User') {
        throw new ApiError('invalidPointer', `'${what}' must be a Pointer to _User.`);
    }
    return targetId(v.objectId, what);
}
/**
 * POST /1.1/users/friendshipRequests (§7.2): creates a pending `_FriendshipRequest` and the
 * requester's half of the friendship, `_Followee {user, followee: friend, friendStatus: false}`,
 * in one transaction; then tells the target (friendship/request/apply).
 */
export async function applyFriendship(ctx, body) {
    const caller = await friendCaller(ctx, 'mutual');
    if (!isPlainObject(body))
        throw new ApiError('invalidJson');
    const requester = body.user === undefined && caller.userId ? caller.userId : pointerTarget(body.user, 'user');
    if (!caller.master && requester !== caller.userId)
        throw new ApiError('forbidden', "'user' must be the current user.");
    const friend = pointerTarget(body.friend, 'friend');
    if (friend === requester)
        throw new ApiError('badRequest', 'A user cannot send a friend request to itself.');
    const attrs = attrsOfBody(body.friendship === undefined ? undefined : { friendship: body.friendship });
    const mode = ctx.app.settings.friendshipACL;
    const created = await friendTransaction(ctx.app, [requester, friend], async (ft) => {
        await requireUsers(ft.tx, [requester, friend]);
        await refuseIfBlocked(ft.tx, requester, friend);
        const mine = await findRow(ft, { cls: FOLLOWEE, owner: requester, other: friend });
        if (mine?.friendStatus === true)
            throw new ApiError('duplicateValue', 'These users are already friends.');
        const existing = await findRow(ft, { cls: REQUEST, owner: requester, other: friend });
        if (existing) {
            const why = existing.status === 'declined'
                ? 'The friend request was declined; delete it (DELETE /1.1/classes/_FriendshipRequest/<id>) to apply again.'
                : 'A friend request to this user already exists.';
            throw new ApiError('duplicateValue', why);
        }
        const req = await upsertRow(ft, { cls: REQUEST, owner: requester, other: friend, fields: { status: 'pending' }, fieldTypes: { status: STRING }, attrs: { data: {}, types: {} }, acl: requestAcl(mode, requester, friend) }, 'keep');
        // A concurrent apply that won the race leaves its row here: refuse rather than report it as ours.
        if (!req.created)
            throw new ApiError('duplicateValue', 'A friend request to this user already exists.');
        await upsertRow(ft, { cls: FOLLOWEE, owner: requester, other: friend, fields: { friendStatus: false }, fieldTypes: { friendStatus: BOOLEAN }, attrs, acl: friendshipAcl(mode, requester, friend) }, 'merge');
        return { objectId: String(req.row.objectId), createdAt: String(req.row.createdAt) };
    });
    await notifyUsers(ctx.app, [friend], 'friendship/request/apply', { requestId: created.objectId });
    return created;
}
async function loadPair(ctx, requestId) {
    if (!isValidObjectId(requestId))
        throw new ApiError('missingObjectId', `Invalid request id '${requestId.slice(0, 80)}'.`);
    await ensureFriendTables(ctx.app);
    const rows = await ctx.app.db.query(sql `SELECT data FROM "_FriendshipRequest" WHERE "objectId" = ${requestId}`);
    if (!rows[0])
        throw new ApiError('classNotFound', `Friend request ${requestId} not found.`);
    const d = rows[0].data;
    return { requester: pointerTarget(d.user, 'user'), target: pointerTarget(d.friend, 'friend') };
}
/**
 * PUT /1.1/users/friendshipRequests/<id>/accept|decline. Only the target (or the master key)
 * answers. Accept makes both halves `friendStatus: true` (creating the target's half with its
 * attributes); decline only marks the request. A declined request can still be accepted later
 * (the target changed its mind); an accepted one cannot be answered again.
 */
export async function answerFriendship(ctx, requestId, answer, body) {
    const caller = await friendCaller(ctx, 'mutual');
    const pair = await loadPair(ctx, requestId);
    if (!caller.master && caller.userId !== pair.target)
        throw new ApiError('forbidden', 'Only the user a friend request was sent to may answer it.');
    const attrs = answer === 'accept' ? attrsOfBody(body) : undefined;
    const mode = ctx.app.settings.friendshipACL;
    const out = await friendTransaction(ctx.app, [pair.requester, pair.target], async (ft) => {
        const rows = await ft.tx.query(sql `SELECT ${OBJECT_COLUMNS} FROM "_FriendshipRequest" WHERE "objectId" = ${requestId} FOR UPDATE`);
        if (!rows[0])
            throw new ApiError('classNotFound', `Friend request ${requestId} not found.`);
        const status = rows[0].data.status;
        if (status === 'accepted')
            throw new ApiError('badRequest', 'This friend request was already accepted.');
        if (answer === 'decline' && status === 'declined')
            throw new ApiError('badRequest', 'This friend request was already declined.');
        const now = new Date().toISOString();
        await ft.tx.query(sql `UPDATE "_FriendshipRequest" SET data = data || ${JSON.stringify({ status: answer === 'accept' ? 'accepted' : 'declined' })}::jsonb, "updatedAt" = ${now} WHERE "objectId" = ${requestId}`);
        if (answer === 'accept') {
            const { requester, target } = pair;
            await upsertRow(ft, { cls: FOLLOWEE, owner: requester, other: target, fields: { friendStatus: true }, fieldTypes: { friendStatus: BOOLEAN }, attrs: { data: {}, types: {} }, acl: friendshipAcl(mode, requester, target) }, 'merge');
            await upsertRow(ft, { cls: FOLLOWEE, owner: target, other: requester, fields: { friendStatus: true }, fieldTypes: { friendStatus: BOOLEAN }, attrs: attrs ?? { data: {}, types: {} }, acl: friendshipAcl(mode, target, requester) }, 'merge');
        }
        return { objectId: requestId, updatedAt: toIso(now) };
    });
    await notifyUsers(ctx.app, [pair.requester], answer === 'accept' ? 'friendship/request/accept' : 'friendship/request/refund', { requestId });
    return out;
}
//# sourceMappingURL=mutual-requests.js.map