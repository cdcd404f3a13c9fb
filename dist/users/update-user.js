import { checkAddFields, checkClassPermission } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { permsOf } from '../objects/acl.js';
import { changedKeys, compileUpdate, typesOf } from '../objects/field-operations.js';
import { parseWriteBody } from '../objects/parse-write.js';
import { applyRelationChanges } from '../objects/relation-rows.js';
import { toIso } from '../objects/timestamps.js';
import { hiddenFields } from '../schema/hidden-fields.js';
import { sql } from '../sql/fragment.js';
import { bindAccounts, unbindAccounts } from './auth-bindings.js';
import { claimable } from './auth-data-login.js';
import { mergeAuthData } from './auth-data-merge.js';
import { verifyAuthData } from './auth-data-verifier.js';
import { afterEmailSet, emailVerifiedOnSet } from './email-hooks.js';
import { hashPassword, isPasswordSet } from './password.js';
import { mappingUniqueViolations } from './unique-violation.js';
import { assertOwnUserOrMaster } from './user-access.js';
import { splitUserBody } from './user-fields.js';
import { findUserById, USER_TABLE } from './user-store.js';
import { compileUserWriteWhere } from './user-write-where.js';
const set = (field, value) => ({ kind: 'set', path: [field], value });
const remove = (field) => ({ kind: 'delete', path: [field] });
/** The operations on the user fields, decided against the locked row. */
function userFieldOps(ctx, row, user, hashed) {
    const ops = [];
    let emailChanged = false;
    if (user.username !== undefined)
        ops.push(set('username', user.username));
    if (hashed !== undefined) {
        if (!ctx.master && isPasswordSet(row.data)) {
            throw new ApiError('readOnlyKey', "The password of a user who has one can only be changed with PUT /1.1/users/<id>/updatePassword (or the master key).");
        }
        ops.push(set('password', hashed), remove('salt'));
    }
    if (user.email === null)
        ops.push(remove('email'));
    else if (user.email !== undefined) {
        ops.push(set('email', user.email));
        if (user.email !== row.data.email) {
            emailChanged = true;
            const verified = emailVerifiedOnSet(ctx.app, 'update');
            if (verified !== undefined)
                ops.push(set('emailVerified', verified));
        }
    }
    if (user.mobilePhoneNumber === null)
        ops.push(remove('mobilePhoneNumber'));
    else if (user.mobilePhoneNumber !== undefined) {
        ops.push(set('mobilePhoneNumber', user.mobilePhoneNumber));
        if (user.mobilePhoneNumber !== row.data.mobilePhoneNumber)
            ops.push(set('mobilePhoneVerified', false));
    }
    for (const [k, v] of Object.entries(user.verifiedFlags))
        ops.push(set(k, v));
    return { ops, emailChanged };
}
/** Updates a user; see the file comment for the rules. */
export async function updateUser(ctx, objectId, body, opts = {}) {
    const { app } = ctx;
    await assertOwnUserOrMaster(ctx, objectId);
    await checkClassPermission(ctx, '_User', 'update');
    const user = splitUserBody(body, { mode: 'update', master: ctx.master });
    const parsed = parseWriteBody(user.rest, 'update');
    const schema = await app.classes.find('_User');
    if (!schema)
        throw new ApiError('classNotFound');
    await checkAddFields(ctx, schema, parsed.ops);
    let where;
    if (opts.where !== undefined) {
        // `_User` ignores ACLs for writes: no ACL on the row, but the caller's limits elsewhere.
        where = await compileUserWriteWhere(ctx, schema, opts.where);
    }
    const authChange = user.authDataChange;
    if (authChange?.link.length)
        await verifyAuthData(app, authChange.link);
    const claim = authChange ? await claimable(ctx, authChange.link, objectId) : [];
    const hashed = user.password === undefined ? undefined : await hashPassword(user.password);
    const now = new Date().toISOString();
    const result = await mappingUniqueViolations(() => app.db.transaction(async (tx) => {
        const row = await findUserById(tx, objectId, true);
        if (!row)
            throw new ApiError('userNotFound');
        if (where) {
            const hit = await tx.query(sql `SELECT 1 FROM ${USER_TABLE} WHERE "objectId" = ${objectId} AND ${where}`);
            if (!hit.length)
                throw new ApiError('noEffect');
        }
        const fields = userFieldOps(ctx, row, user, hashed);
        const ops = [...parsed.ops, ...fields.ops];
        if (authChange || hashed !== undefined) {
            const merged = mergeAuthData(row.data.authData, {
                link: authChange?.link ?? [],
                unlink: authChange?.unlink ?? [],
                claim,
                gainsPassword: hashed !== undefined,
            });
            if (authChange || merged.leftAnonymous) {
                ops.push(set('authData', merged.doc));
                await unbindAccounts(tx, objectId, merged.unbind);
                await bindAccounts(tx, objectId, merged.bind);
            }
        }
        const s = await app.classes.lockFields(tx, '_User', typesOf(ops));
        const update = compileUpdate(ops);
        let setAcl = sql ``;
        if (parsed.acl) {
            const { rperm, wperm } = permsOf(parsed.acl);
            setAcl = sql `, acl = ${JSON.stringify(parsed.acl)}::jsonb, rperm = ${rperm}::text[], wperm = ${wperm}::text[]`;
        }
        const rows = await tx.query(sql `UPDATE ${USER_TABLE}
        SET data = ${update.data}, "updatedAt" = ${now}::timestamptz${setAcl}
        WHERE "objectId" = ${objectId} RETURNING "updatedAt", data`);
        await applyRelationChanges(tx, '_User', objectId, update.relations);
        return { row: rows[0], ops, schema: s, emailChanged: fields.emailChanged };
    }));
    app.classes.publish(result.schema);
    const data = result.row.data;
    if (result.emailChanged && typeof data.email === 'string') {
        await afterEmailSet(app, { objectId, email: data.email, username: typeof data.username === 'string' ? data.username : undefined });
    }
    const hidden = new Set(hiddenFields('_User'));
    const changed = {};
    for (const k of changedKeys(result.ops)) {
        if ((!hidden.has(k) || k === 'authData') && Object.hasOwn(data, k))
            changed[k] = data[k];
    }
    if (parsed.acl)
        changed.ACL = parsed.acl;
    return { updatedAt: toIso(result.row.updatedAt), changed };
}
//# sourceMappingURL=update-user.js.map