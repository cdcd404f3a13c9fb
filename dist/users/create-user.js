import { checkAddFields, checkClassPermission } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { permsOf } from '../objects/acl.js';
import { applyOnCreate, typesOf } from '../objects/field-operations.js';
import { newObjectId } from '../objects/object-id.js';
import { parseWriteBody } from '../objects/parse-write.js';
import { applyRelationChanges } from '../objects/relation-rows.js';
import { sql } from '../sql/fragment.js';
import { ANONYMOUS, unionKey } from './auth-data.js';
import { bindAccounts } from './auth-bindings.js';
import { afterEmailSet, emailVerifiedOnSet } from './email-hooks.js';
import { hashPassword } from './password.js';
import { newSessionToken, randomUsername } from './session-token.js';
import { mappingUniqueViolations } from './unique-violation.js';
import { defaultUserAcl } from './user-acl.js';
import { splitUserBody } from './user-fields.js';
import { USER_TABLE } from './user-store.js';
const set = (field, value) => ({ kind: 'set', path: [field], value });
/** The authData document and the bindings of a set of platform entries (plus claimed unions). */
export function authDataOf(entries, unions) {
    const doc = {};
    const bindings = [];
    for (const e of entries) {
        doc[e.platform] = e.data;
        bindings.push({ platform: e.platform, uid: e.uid });
    }
    for (const e of unions) {
        if (!e.union)
            continue;
        const key = unionKey(e.union.platform);
        doc[key] = { uid: e.union.unionid };
        bindings.push({ platform: key, uid: e.union.unionid });
    }
    return { doc, bindings };
}
/**
 * Creates a user from a sign-up body (wire form). `username` is required (200) unless
 * `generateUsername`; the password is optional here (the sign-up route requires it).
 */
export async function createUser(ctx, body, opts = {}) {
    const { app } = ctx;
    await checkClassPermission(ctx, '_User', 'create');
    const user = splitUserBody(body, { mode: 'create', master: ctx.master });
    const username = user.username ?? (opts.generateUsername ? randomUsername() : undefined);
    if (username === undefined)
        throw new ApiError('usernameMissing');
    const parsed = parseWriteBody(user.rest, 'create');
    await checkAddFields(ctx, await app.classes.find('_User'), parsed.ops);
    const objectId = newObjectId();
    const sessionToken = newSessionToken();
    const now = new Date().toISOString();
    const acl = parsed.acl ?? (await defaultUserAcl(app, objectId));
    const { rperm, wperm } = permsOf(acl);
    const ops = [...parsed.ops, set('username', username), set('sessionToken', sessionToken)];
    if (user.password !== undefined)
        ops.push(set('password', await hashPassword(user.password)));
    if (user.email)
        ops.push(set('email', user.email));
    if (user.mobilePhoneNumber)
        ops.push(set('mobilePhoneNumber', user.mobilePhoneNumber));
    ops.push(set('emailVerified', user.email ? emailVerifiedOnSet(app, 'create') ?? null : null));
    ops.push(set('mobilePhoneVerified', false));
    for (const [k, v] of Object.entries(user.verifiedFlags))
        ops.push(set(k, v));
    // A user with a password is not anonymous, even if the body also carried an anonymous id.
    const entries = (user.authData ?? []).filter((e) => user.password === undefined || e.platform !== ANONYMOUS);
    const { doc, bindings } = authDataOf(entries, opts.claimUnions ?? []);
    if (Object.keys(doc).length)
        ops.push(set('authData', doc));
    for (const [k, v] of Object.entries(opts.serverFields ?? {}))
        ops.push(set(k, v));
    // Later sets of one field win (server fields over defaults): keep the last op per field.
    const finalOps = [...new Map(ops.map((op) => [op.path.join('.'), op])).values()];
    const { data, relations } = applyOnCreate(finalOps);
    const types = typesOf(finalOps);
    const schema = await mappingUniqueViolations(() => app.db.transaction(async (tx) => {
        const s = await app.classes.lockFields(tx, '_User', types);
        await tx.query(sql `INSERT INTO ${USER_TABLE} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
        VALUES (${objectId}, ${now}::timestamptz, ${now}::timestamptz, ${JSON.stringify(acl)}::jsonb, ${rperm}::text[], ${wperm}::text[], ${JSON.stringify(data)}::jsonb)`);
        await bindAccounts(tx, objectId, bindings);
        await applyRelationChanges(tx, '_User', objectId, relations);
        return s;
    }));
    app.classes.publish(schema);
    if (user.email)
        await afterEmailSet(app, { objectId, email: user.email, username });
    return { row: { objectId, createdAt: now, updatedAt: now, acl, data }, sessionToken };
}
//# sourceMappingURL=create-user.js.map