/**
 * `_larder_auth_bindings(platform, uid, user_id)`: which user a platform account belongs to.
 * Its primary key is what makes "one platform account binds to at most one user" true under
 * concurrency: bindings are written in the same transaction as the user row, so a sign-up that
 * loses a race rolls back whole.
 */
import { ApiError } from '../errors/api-error.js';
import { sql } from '../sql/fragment.js';
function columns(pairs) {
    return { platforms: pairs.map((p) => p.platform), uids: pairs.map((p) => p.uid) };
}
/** The owners of the given platform accounts, as `platform\u0000uid` -> user objectId. */
export async function bindingOwners(q, pairs) {
    if (!pairs.length)
        return new Map();
    const { platforms, uids } = columns(pairs);
    const rows = await q.query(sql `
    SELECT b.platform, b.uid, b.user_id FROM _larder_auth_bindings b
      JOIN unnest(${platforms}::text[], ${uids}::text[]) AS want(platform, uid)
        ON b.platform = want.platform AND b.uid = want.uid`);
    return new Map(rows.map((r) => [bindingKey(r), r.user_id]));
}
/** The map key of a binding. */
export function bindingKey(b) {
    return `${b.platform}\u0000${b.uid}`;
}
/**
 * Binds platform accounts to a user. An account already bound to this user stays as it is; one
 * bound to another user is 208 (the caller's transaction then rolls back). Waits on concurrent
 * uncommitted bindings of the same account, so the outcome is decided by the primary key.
 */
export async function bindAccounts(tx, userId, pairs) {
    if (!pairs.length)
        return;
    const { platforms, uids } = columns(pairs);
    // DO UPDATE (a no-op write) rather than DO NOTHING so that every row comes back with its owner.
    const rows = await tx.query(sql `
    INSERT INTO _larder_auth_bindings (platform, uid, user_id)
      SELECT platform, uid, ${userId} FROM unnest(${platforms}::text[], ${uids}::text[]) AS want(platform, uid)
    ON CONFLICT (platform, uid) DO UPDATE SET user_id = _larder_auth_bindings.user_id
    RETURNING platform, user_id`);
    const taken = rows.find((r) => r.user_id !== userId);
    if (taken)
        throw new ApiError('authDataTaken', `An existing account already linked to another user (authData.${taken.platform}).`);
}
/** Removes a user's bindings of the given platforms (unlink), or of all platforms. */
export async function unbindAccounts(tx, userId, platforms) {
    if (platforms === undefined) {
        await tx.query(sql `DELETE FROM _larder_auth_bindings WHERE user_id = ${userId}`);
    }
    else if (platforms.length) {
        await tx.query(sql `DELETE FROM _larder_auth_bindings WHERE user_id = ${userId} AND platform = ANY(${[...platforms]}::text[])`);
    }
}
//# sourceMappingURL=auth-bindings.js.map