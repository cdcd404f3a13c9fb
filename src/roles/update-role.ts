import type { RequestContext } from '../app-context.ts';
import { invalidateRoles } from '../auth/cache-invalidation.ts';
import { checkClassPermission } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { updateObject, type Updated, type UpdateOptions } from '../objects/update-object.ts';
import { accessOf, writableRow } from '../plan/index.ts';
import { ROLE_CLASS } from './create-role.ts';
import { parseRoleBody } from './role-body.ts';

/**
 * A `name` in an update body: accepted only when it repeats the current name (SDKs may echo
 * fetched fields), and only said so to a caller who may write the role; otherwise the update
 * runs without it and the role's write ACL answers (403) before the name is judged.
 */
async function dropUnchangedName(ctx: RequestContext, objectId: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!Object.hasOwn(body, 'name')) return body;
  const { name, ...rest } = body;
  const access = await accessOf(ctx);
  const rows = await ctx.app.db.query<{ name: string | null; writable: boolean }>(writableRow(access, ROLE_CLASS, objectId, ['name']));
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
export async function updateRole(ctx: RequestContext, objectId: string, body: unknown, opts: UpdateOptions): Promise<Updated> {
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  // Class permission first, so a refused caller learns nothing about the role's name.
  await checkClassPermission(ctx, ROLE_CLASS, 'update');
  let changesMembership = false;
  // The role rules run in the pipeline's check stage, also on a body a before extension replaced.
  const prepareBody = async (b: unknown): Promise<Record<string, unknown>> => {
    if (!isPlainObject(b)) throw new ApiError('invalidJson');
    changesMembership = parseRoleBody(b, 'update').changesMembership;
    return dropUnchangedName(ctx, objectId, b);
  };
  const updated = await updateObject(ctx, ROLE_CLASS, objectId, body, { ...opts, prepareBody });
  if (changesMembership) await invalidateRoles(ctx.app);
  return updated;
}
