import { ApiError } from '../../errors/api-error.js';
import { withFiles } from '../../objects/create-object.js';
import { isValidObjectId } from '../../objects/object-id.js';
import { createRole, ROLE_CLASS } from '../../roles/create-role.js';
import { deleteRoles } from '../../roles/delete-role.js';
import { updateRole } from '../../roles/update-role.js';
import { flag, json } from '../query-params.js';
import { ok } from '../route.js';
import { findRoute, getRoute } from './classes.js';
function idsOf(req) {
    const ids = req.params.objectId.split(',');
    for (const id of ids)
        if (!isValidObjectId(id))
            throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
    return ids;
}
function wantsObject(req) {
    return flag(req.query, 'fetchWhenSave') || flag(req.query, 'new');
}
async function create(req, collection) {
    const created = await createRole(req.ctx, req.body);
    const body = wantsObject(req) ? await withFiles(req.ctx, '_Role', created.object) : { objectId: created.objectId, createdAt: created.createdAt };
    return ok(body, 201, { Location: `${req.ctx.baseUrl}${collection}/${created.objectId}` });
}
async function update(req) {
    const [objectId] = idsOf(req);
    if (req.params.objectId !== objectId)
        throw new ApiError('missingObjectId', 'Update one role at a time.');
    const res = await updateRole(req.ctx, objectId, req.body, { where: json(req.query, 'where') });
    const base = { updatedAt: res.updatedAt, objectId };
    return ok(wantsObject(req) ? { ...res.changed, ...base } : base);
}
async function remove(req) {
    await deleteRoles(req.ctx, idsOf(req), json(req.query, 'where'));
    return ok({});
}
/**
 * Both spellings of the role endpoints: /1.1/roles (spec) and /1.1/classes/_Role (SDKs). The
 * literal `_Role` segment wins over /1.1/classes/:className, so no generic writer ever sees a
 * role. Reads are the generic ones: ACL and class permissions apply as to any class.
 */
function routesAt(collection) {
    return [
        { method: 'POST', path: collection, handler: (req) => create(req, collection) },
        { method: 'GET', path: collection, handler: (req) => findRoute(req, ROLE_CLASS) },
        { method: 'GET', path: `${collection}/:objectId`, handler: (req) => getRoute(req, ROLE_CLASS) },
        { method: 'PUT', path: `${collection}/:objectId`, handler: update },
        { method: 'DELETE', path: `${collection}/:objectId`, handler: remove },
    ];
}
/** Routes of /1.1/roles and /1.1/classes/_Role. */
export const roleRoutes = [...routesAt('/1.1/roles'), ...routesAt('/1.1/classes/_Role')];
//# sourceMappingURL=roles.js.map