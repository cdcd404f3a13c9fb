import { checkClassPermission } from '../auth/class-permissions.js';
import { invalidateSessions } from '../auth/cache-invalidation.js';
import { ApiError } from '../errors/api-error.js';
import { deleteOwnedRelations } from '../objects/relation-rows.js';
import { sql } from '../sql/fragment.js';
import { unbindAccounts } from './auth-bindings.js';
import { clearFailures } from './login-lock.js';
import { assertOwnUserOrMaster } from './user-access.js';
import { USER_TABLE } from './user-store.js';
import { compileUserWriteWhere } from './user-write-where.js';
/** Deletes a user; unknown id 211, a `where` that does not match 305. */
export async function deleteUser(ctx, objectId, where) {
    const { app } = ctx;
    await assertOwnUserOrMaster(ctx, objectId);
    await checkClassPermission(ctx, '_User', 'delete');
    let cond = sql `TRUE`;
    if (where !== undefined) {
        const schema = await app.classes.find('_User');
        if (!schema)
            throw new ApiError('classNotFound');
        cond = await compileUserWriteWhere(ctx, schema, where);
    }
    await app.db.transaction(async (tx) => {
        const rows = await tx.query(sql `SELECT (${cond}) AS ok FROM ${USER_TABLE} WHERE "objectId" = ${objectId} FOR UPDATE`);
        if (!rows[0])
            throw new ApiError('userNotFound');
        if (!rows[0].ok)
            throw new ApiError('noEffect');
        await tx.query(sql `DELETE FROM ${USER_TABLE} WHERE "objectId" = ${objectId}`);
        await unbindAccounts(tx, objectId);
        await clearFailures(tx, objectId);
        await deleteOwnedRelations(tx, '_User', [objectId]);
        await tx.query(sql `DELETE FROM _larder_relations WHERE target_class = '_User' AND target_id = ${objectId}`);
    });
    await invalidateSessions(app, objectId);
}
//# sourceMappingURL=delete-user.js.map