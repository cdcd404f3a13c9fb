import type { RequestContext } from '../app-context.ts';
import { invalidateRoles } from '../auth/cache-invalidation.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import { createObject, type Created } from '../objects/create-object.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { checkRoleName, parseRoleBody, relationMarker, ROLE_RELATIONS } from './role-body.ts';

/** The class roles live in. */
export const ROLE_CLASS = '_Role';

/**
 * Creates a role (POST /1.1/roles, /1.1/classes/_Role). The name is validated (139) and unique
 * (137, enforced by a unique index, so concurrent creates cannot both win); the ACL is required
 * (400, code 1, `Role ACL is required.`). `users` and `roles` are stored as Relation markers so
 * a GET always shows them; members given with AddRelation are written in the same transaction.
 */
export async function createRole(ctx: RequestContext, body: unknown): Promise<Created> {
  let name = '';
  let changesMembership = false;
  // The role rules run in the pipeline's check stage: on the client's body, and again on a body
  // a before extension (beforeSave hook) replaced it with.
  const prepareBody = (b: unknown): Record<string, unknown> => {
    if (!isPlainObject(b)) throw new ApiError('invalidJson');
    name = checkRoleName(b.name);
    if (b.ACL === undefined || b.ACL === null) throw new ApiError('roleAclRequired');
    changesMembership = parseRoleBody(b, 'create').changesMembership;
    const withMarkers: Record<string, unknown> = { ...b };
    for (const [field, target] of Object.entries(ROLE_RELATIONS)) {
      if (withMarkers[field] === undefined) withMarkers[field] = relationMarker(target);
    }
    return withMarkers;
  };
  let created: Created;
  try {
    created = await createObject(ctx, ROLE_CLASS, body, { prepareBody });
  } catch (err) {
    if (isApiError(err) && err.errorName === 'duplicateValue') {
      throw new ApiError('duplicateValue', `A role named '${name}' already exists.`);
    }
    throw err;
  }
  if (changesMembership) await invalidateRoles(ctx.app);
  return created;
}
