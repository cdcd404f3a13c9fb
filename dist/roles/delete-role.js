import { invalidateRoles } from '../auth/cache-invalidation.js';
import { deleteObjects } from '../objects/delete-object.js';
import { sql } from '../sql/fragment.js';
import { ROLE_CLASS } from './create-role.js';
/**
 * Deletes roles (DELETE /1.1/roles/<id>): only with write permission on each role's ACL (403
 * otherwise, nothing deleted). The generic delete removes the role and the relation rows it
 * owns (its users and child roles); rows that name it as a child of other roles go too, and
 * every cached principal is dropped in every process.
 */
export async function deleteRoles(ctx, objectIds, where) {
    await deleteObjects(ctx, ROLE_CLASS, objectIds, where);
    await ctx.app.db.query(sql `DELETE FROM _larder_relations WHERE owner_class = ${ROLE_CLASS} AND key = 'roles'
    AND target_class = ${ROLE_CLASS} AND target_id = ANY(${objectIds}::text[])
    AND NOT EXISTS (SELECT 1 FROM "_Role" r WHERE r."objectId" = target_id)`);
    await invalidateRoles(ctx.app);
}
//# sourceMappingURL=delete-role.js.map