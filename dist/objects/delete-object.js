import { readersOf } from '../app-context.js';
import { checkClassPermission, checkInnerQueries } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { ident, sql } from '../sql/fragment.js';
import { compileFilter } from './find-objects.js';
import { deleteOwnedRelations } from './relation-rows.js';
import { writeAclClause } from './write-acl.js';
import { whyNoWrite } from './write-outcome.js';
/** Most ids one comma-joined DELETE may name (the JS SDK's destroyAll sends them this way). */
export const MAX_DELETE_IDS = 1000;
/**
 * Deletes objects by id (one, or several comma-joined as the JS SDK's destroyAll sends them)
 * together with the relation rows they own. A missing object is not an error (deleting is
 * idempotent); no write permission is 403; a `where` that does not match is 305. With several
 * ids nothing is deleted unless every object may be deleted.
 */
export async function deleteObjects(ctx, className, objectIds, where) {
    const { db, classes } = ctx.app;
    const schema = await classes.find(className);
    if (!schema)
        throw new ApiError('classNotFound');
    if (objectIds.length > MAX_DELETE_IDS)
        throw new ApiError('badRequest', `At most ${MAX_DELETE_IDS} objects can be deleted at once.`);
    await checkClassPermission(ctx, className, 'delete');
    const writers = await readersOf(ctx);
    let cond = sql `TRUE`;
    if (where !== undefined) {
        const compiled = compileFilter(schema, where, ctx, writers);
        await checkInnerQueries(ctx, compiled.cond);
        cond = compiled.filter;
    }
    const table = ident(className);
    await db.transaction(async (tx) => {
        const existing = await tx.query(sql `SELECT "objectId", (${writeAclClause(writers)}) AND (${cond}) AS ok FROM ${table} WHERE "objectId" = ANY(${objectIds}::text[]) FOR UPDATE`);
        const refused = existing.find((r) => !r.ok);
        if (refused)
            throw await whyNoWrite(tx, className, refused.objectId, writers);
        if (!existing.length) {
            if (where !== undefined)
                throw new ApiError('noEffect');
            return;
        }
        const ids = existing.map((r) => r.objectId);
        await tx.query(sql `DELETE FROM ${table} WHERE "objectId" = ANY(${ids}::text[])`);
        await deleteOwnedRelations(tx, className, ids);
    });
}
//# sourceMappingURL=delete-object.js.map