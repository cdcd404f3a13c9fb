import { ApiError, isApiError } from '../errors/api-error.js';
import { sql } from '../sql/fragment.js';
import { unionKey } from './auth-data.js';
import { bindAccounts, bindingKey, bindingOwners, unbindAccounts } from './auth-bindings.js';
import { mergeAuthData } from './auth-data-merge.js';
import { verifyAuthData } from './auth-data-verifier.js';
import { createUser } from './create-user.js';
import { sessionTokenOf } from './session-issue.js';
import { mappingUniqueViolations } from './unique-violation.js';
import { splitUserBody } from './user-fields.js';
import { findUserById, USER_TABLE } from './user-store.js';
function unionBinding(e) {
    return e.union ? { platform: unionKey(e.union.platform), uid: e.union.unionid } : undefined;
}
/** The one user the entries point at (by platform account, then by unionid), if any. */
async function findOwner(ctx, entries) {
    const direct = await bindingOwners(ctx.app.db, entries.map((e) => ({ platform: e.platform, uid: e.uid })));
    const owners = new Set(direct.values());
    if (owners.size > 1)
        throw new ApiError('authDataTaken', 'The given authData accounts are linked to different users.');
    if (owners.size === 1)
        return [...owners][0];
    const unions = entries.map(unionBinding).filter((b) => b !== undefined);
    const byUnion = await bindingOwners(ctx.app.db, unions);
    const unionOwners = new Set(byUnion.values());
    if (unionOwners.size > 1)
        throw new ApiError('authDataTaken', 'The given unionids are linked to different users.');
    return [...unionOwners][0];
}
/** Entries whose unionid a login or link claims: main_account, and the unionid is nobody's yet. */
export async function claimable(ctx, entries, userId) {
    const wanted = entries.filter((e) => e.union?.main);
    if (!wanted.length)
        return [];
    const owners = await bindingOwners(ctx.app.db, wanted.map((e) => unionBinding(e)));
    return wanted.filter((e) => {
        const owner = owners.get(bindingKey(unionBinding(e)));
        return owner === undefined || owner === userId;
    });
}
/** Re-saves the entries on an existing user (merge per platform) and returns its row. */
async function logInto(ctx, userId, entries) {
    const claim = await claimable(ctx, entries, userId);
    const now = new Date().toISOString();
    return mappingUniqueViolations(() => ctx.app.db.transaction(async (tx) => {
        const row = await findUserById(tx, userId, true);
        if (!row)
            throw new ApiError('userNotFound');
        const merged = mergeAuthData(row.data.authData, { link: entries, unlink: [], claim, gainsPassword: false });
        await unbindAccounts(tx, userId, merged.unbind);
        await bindAccounts(tx, userId, merged.bind);
        const rows = await tx.query(sql `UPDATE ${USER_TABLE}
        SET data = data || jsonb_build_object('authData', ${JSON.stringify(merged.doc)}::jsonb), "updatedAt" = ${now}::timestamptz
        WHERE "objectId" = ${userId} RETURNING "updatedAt", data`);
        return { ...row, updatedAt: rows[0].updatedAt, data: rows[0].data };
    }));
}
/** Logs in with, or signs up with, the authData of a POST /1.1/users body. */
export async function loginWithAuthData(ctx, body, opts) {
    const entries = splitUserBody(body, { mode: 'create', master: ctx.master }).authData ?? [];
    if (!entries.length)
        throw new ApiError('linkedIdMissing');
    await verifyAuthData(ctx.app, entries);
    for (let attempt = 0;; attempt++) {
        const owner = await findOwner(ctx, entries);
        if (owner) {
            const row = await logInto(ctx, owner, entries);
            return { row, sessionToken: await sessionTokenOf(ctx.app.db, row), created: false };
        }
        if (opts.failOnNotExist)
            throw new ApiError('userNotFound');
        try {
            const created = await createUser(ctx, body, { generateUsername: true, claimUnions: await claimable(ctx, entries) });
            return { ...created, created: true };
        }
        catch (err) {
            // Lost the race for a platform account to a concurrent first login: log in instead.
            if (attempt === 0 && isApiError(err) && err.errorName === 'authDataTaken')
                continue;
            throw err;
        }
    }
}
//# sourceMappingURL=auth-data-login.js.map