import { ApiError } from '../../../errors/api-error.js';
import { isValidObjectId } from '../../../objects/object-id.js';
import { sql } from '../../../sql/fragment.js';
import { requireFriendsEnabled } from '../friends-enabled.js';
const MODEL_NAMES = { mutual: 'mutual friends', follow: 'follow' };
/**
 * Refuses an endpoint while the friend model is unset or is the other model. The choice is
 * the operator's and permanent, so Larder never picks one implicitly on first use.
 */
export function requireModel(app, need) {
    const model = app.settings.friendModel;
    if (model === '') {
        throw new ApiError('friendModelMismatch', "No friend model is chosen for this app. The operator must set friendModel to 'mutual' or 'follow' (PUT /1.1/larder/settings with the master key, or `larder settings set friendModel <model>`); the choice is permanent.");
    }
    if (need !== 'any' && need !== model) {
        throw new ApiError('friendModelMismatch', `This endpoint belongs to the ${MODEL_NAMES[need]} model, but this app uses the ${MODEL_NAMES[model]} model.`);
    }
}
/** The common gate of every friendship endpoint: service on, model right, a user or the master key. */
export async function friendCaller(ctx, need) {
    requireFriendsEnabled(ctx.app);
    requireModel(ctx.app, need);
    return signedIn(ctx);
}
/** A user session or the master key (403/206 otherwise). */
async function signedIn(ctx) {
    const p = await ctx.principal();
    if (!p.master && !p.userId)
        throw new ApiError('sessionRequired', 'This endpoint needs the session of a user (X-LC-Session).');
    return { master: p.master, userId: p.userId };
}
/**
 * The gate of the storage SDK's follow API (`AV.User#follow` / `unfollow`, followers, followees
 * and the status inbox built on them): every LeanCloud app had it long before the TDS friends
 * service and its console switch, so it answers without `richPresenceSync` and without a chosen
 * friend model (an unchosen model acts as the follow model here). Only an app that chose the
 * mutual model refuses it, because there `_Followee` rows are friendships, not follows.
 */
export async function storageFollowCaller(ctx) {
    if (ctx.app.settings.friendModel === 'mutual')
        requireModel(ctx.app, 'follow');
    return signedIn(ctx);
}
/** True when the app uses follows (the follow model, or no model chosen yet: the storage follow API). */
export function followsApply(app) {
    return app.settings.friendModel !== 'mutual';
}
/** The session's user, for endpoints that always act as the caller (the TDS /friend/v2 ones). */
export function sessionUser(caller) {
    if (!caller.userId)
        throw new ApiError('sessionRequired', 'This endpoint acts as the current user and needs its session (X-LC-Session), also with the master key.');
    return caller.userId;
}
/**
 * The user a path names (`self` or an objectId). Clients may act only as themselves; the
 * master key may act as anyone (operator tools, migrations).
 */
export function pathUser(caller, id) {
    if (id === 'self')
        return sessionUser(caller);
    if (!isValidObjectId(id))
        throw new ApiError('missingObjectId', `Invalid user id '${id.slice(0, 80)}'.`);
    if (!caller.master && id !== caller.userId)
        throw new ApiError('forbidden', 'A user may only change its own friendships.');
    return id;
}
/** A user id from a path or body (the other user of a friendship): checked syntactically. */
export function targetId(value, what = 'user') {
    if (typeof value !== 'string' || !isValidObjectId(value)) {
        throw new ApiError('missingObjectId', `Invalid ${what} id ${JSON.stringify(String(value)).slice(0, 80)}.`);
    }
    return value;
}
/** Throws 211 unless every id names an existing user. */
export async function requireUsers(q, ids) {
    const unique = [...new Set(ids)];
    const rows = await q.query(sql `SELECT "objectId" FROM "_User" WHERE "objectId" = ANY(${unique}::text[])`);
    const found = new Set(rows.map((r) => r.objectId));
    const missing = unique.find((id) => !found.has(id));
    if (missing)
        throw new ApiError('userNotFound', `Could not find user ${missing}.`);
}
/** A stored pointer to a user. */
export function userPointer(objectId) {
    return { __type: 'Pointer', className: '_User', objectId };
}
//# sourceMappingURL=friend-guard.js.map