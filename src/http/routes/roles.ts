import { ApiError } from '../../errors/api-error.ts';
import { withFiles } from '../../objects/create-object.ts';
import { isValidObjectId } from '../../model/object-id.ts';
import { createRole, ROLE_CLASS } from '../../roles/create-role.ts';
import { deleteRoles } from '../../roles/delete-role.ts';
import { updateRole } from '../../roles/update-role.ts';
import { flag, json } from '../query-params.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../route.ts';
import { findRoute, getRoute } from './classes.ts';

function idsOf(req: ApiRequest): string[] {
  const ids = req.params.objectId.split(',');
  for (const id of ids) if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
  return ids;
}

function wantsObject(req: ApiRequest): boolean {
  return flag(req.query, 'fetchWhenSave') || flag(req.query, 'new');
}

async function create(req: ApiRequest, collection: string): Promise<ApiResponse> {
  const created = await createRole(req.ctx, req.body);
  const body = wantsObject(req) ? await withFiles(req.ctx, '_Role', created.object) : { objectId: created.objectId, createdAt: created.createdAt };
  return ok(body, 201, { Location: `${req.ctx.baseUrl}${collection}/${created.objectId}` });
}

async function update(req: ApiRequest): Promise<ApiResponse> {
  const [objectId] = idsOf(req);
  if (req.params.objectId !== objectId) throw new ApiError('missingObjectId', 'Update one role at a time.');
  const res = await updateRole(req.ctx, objectId, req.body, { where: json(req.query, 'where') });
  const base = { updatedAt: res.updatedAt, objectId };
  return ok(wantsObject(req) ? { ...res.changed, ...base } : base);
}

async function remove(req: ApiRequest): Promise<ApiResponse> {
  await deleteRoles(req.ctx, idsOf(req), json(req.query, 'where'), req.body);
  return ok({});
}

/**
 * Both spellings of the role endpoints: /1.1/roles (spec) and /1.1/classes/_Role (SDKs). The
 * literal `_Role` segment wins over /1.1/classes/:className, so no generic writer ever sees a
 * role. Reads are the generic ones: ACL and class permissions apply as to any class.
 */
function routesAt(collection: string): Route[] {
  return [
    { method: 'POST', path: collection, handler: (req) => create(req, collection) },
    { method: 'GET', path: collection, handler: (req) => findRoute(req, ROLE_CLASS) },
    { method: 'GET', path: `${collection}/:objectId`, handler: (req) => getRoute(req, ROLE_CLASS) },
    { method: 'PUT', path: `${collection}/:objectId`, handler: update },
    { method: 'DELETE', path: `${collection}/:objectId`, handler: remove },
  ];
}

/** Routes of /1.1/roles and /1.1/classes/_Role. */
export const roleRoutes: Route[] = [...routesAt('/1.1/roles'), ...routesAt('/1.1/classes/_Role')];
