import { invalidateRoles } from '../auth/cache-invalidation.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import { createObject } from '../objects/create-object.js';
import { isPlainObject } from '../objects/decode-value.js';
import { checkRoleName, parseRoleBody, relationMarker, ROLE_RELATIONS } from './role-body.js';
/** The class roles live in. */
export const ROLE_CLASS = '_Role';
/**
 * Creates a role (POST /1.1/roles, /1.1/classes/_Role). The name is validated (139) and unique
 * (137, enforced by a unique index, so concurrent creates cannot both win); the ACL is required
 * (400, code 1, `Role ACL is required.`). `users` and `roles` are stored as Relation markers so
 * a GET always shows them; members given with AddRelation are written in the same transaction.
 */
export async function createRole(ctx, body) {
    if (!isPlainObject(body))
        throw new ApiError('invalidJson');
    const name = checkRoleName(body.name);
    if (body.ACL === undefined || body.ACL === null)
        throw new ApiError('roleAclRequired');
    const { changesMembership } = parseRoleBody(body, 'create');
    const withMarkers = { ...body };
    for (const [field, target] of Object.entries(ROLE_RELATIONS)) {
        if (withMarkers[field] === undefined)
            withMarkers[field] = relationMarker(target);
    }
    let created;
    try {
        created = await createObject(ctx, ROLE_CLASS, withMarkers);
    }
    catch (err) {
        if (isApiError(err) && err.errorName === 'duplicateValue') {
            throw new ApiError('duplicateValue', `A role named '${name}' already exists.`);
        }
        throw err;
    }
    if (changesMembership)
        await invalidateRoles(ctx.app);
    return created;
}
//# sourceMappingURL=create-role.js.map