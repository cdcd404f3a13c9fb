import { readersOf } from '../app-context.js';
import { invalidateRoles } from '../auth/cache-invalidation.js';
import { checkClassPermission } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { isPlainObject } from '../objects/decode-value.js';
import { updateObject } from '../objects/update-object.js';
import { writeAclClause } from '../objects/write-acl.js';
import { sql } from '../sql/fragment.js';
import { ROLE_CLASS } from './create-role.js';
import { parseRoleBody } from './role-body.js';
/**
 * A `name` in an update body: accepted only when it repeats the current name (SDKs may echo
 * fetched fields), and only said so to a caller who may write the role; otherwise the update
 * runs without it and the role's write ACL answers (403) before the name is judged.
 */
async function dropUnchangedName(ctx, objectId, body) {
    if (!Object.hasOwn(body, 'name'))
        return body;
    const { name, ...rest } = body;
    const writers = await readersOf(ctx);
    const rows = await ctx.app.db.query(sql `SELECT data->>'name' AS name, ${writeAclClause(writers)} AS writable FROM "_Role" WHERE "objectId" = ${objectId}`);
    if (rows[0]?.writable && rows[0].name !== name) {
        throw new ApiError('readOnlyKey', "A role's name cannot be changed once the role is saved.");
    }
    return rest;
}
/**
 * Updates a role (PUT /1.1/roles/<id>, /1.1/classes/_Role/<id>). The generic update does the
 * work in one statement guarded by the role's write ACL: relation rows (membership) are only
 * written in the same transaction when that statement matched, so a caller who cannot write the
 * role cannot add itself to it (403, nothing changed). Membership changes drop every cached
 * principal, in every process.
 */
export async function updateRole(ctx, objectId, body, opts) {
    if (!isPlainObject(body))
        throw new ApiError('invalidJson');
    // Class permission first, so a refused caller learns nothing about the role's name.
    await checkClassPermission(ctx, ROLE_CLASS, 'update');
    const { changesMembership } = parseRoleBody(body, 'update');
    const clean = await dropUnchangedName(ctx, objectId, body);
    const updated = await updateObject(ctx, ROLE_CLASS, objectId, clean, opts);
    if (changesMembership)
        await invalidateRoles(ctx.app);
    return updated;
}
//# sourceMappingURL=update-role.js.map