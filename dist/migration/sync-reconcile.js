/**
 * Deletions in `larder sync`. An object deleted on the source simply stops appearing, so no
 * updatedAt scan can see it. Every so often the sync therefore lists every objectId of a class on
 * the source (a scan with keys=objectId: one GET per 1,000 objects) and deletes from the target
 * the objects the source no longer has, with the relation rows they own (and, for users, their
 * platform bindings), as deleting them through the API would.
 *
 * Race: an object created on the source while its ids are being listed may sort before the
 * scan's position and be missed, while an incremental round has already copied it. So only
 * target objects created before the listing started (minus the overlap, on the source's clock:
 * createdAt is copied from the source) are candidates for deletion.
 */
import { deleteOwnedRelations } from '../objects/relation-rows.js';
import { ident, sql } from '../sql/fragment.js';
import { scanPage, sourceDate } from './sync-reader.js';
/** Ids per page when listing (the scan's largest page) and per DELETE statement. */
const PAGE = 1000;
/** Every objectId of a class on the source. */
async function sourceIds(client, className, stopping) {
    const ids = new Set();
    let cursor;
    do {
        // Stopping mid-listing must not delete anything: an incomplete list would look like deletions.
        if (stopping())
            return undefined;
        const page = await scanPage(client, className, { limit: PAGE, keys: 'objectId', cursor });
        for (const o of page.results)
            ids.add(o.objectId);
        cursor = page.cursor ?? undefined;
    } while (cursor);
    return ids;
}
/**
 * Deletes from the target the objects of `className` that the source no longer has. Returns
 * undefined when stopped before the listing was complete (nothing deleted then).
 */
export async function reconcileDeletions(deps, className) {
    // A class the target does not have yet has nothing to delete.
    if (!(await deps.target.classes.find(className)))
        return { sourceCount: 0, deleted: 0 };
    const started = await sourceDate(deps.client);
    const keep = await sourceIds(deps.client, className, deps.stopping);
    if (!keep)
        return undefined;
    const cutoff = new Date(started.getTime() - deps.overlapMs).toISOString();
    const table = ident(className);
    const doomed = [];
    // Keyset over the target's ids, so a large class is never loaded at once.
    for (let after = '';;) {
        const rows = await deps.target.db.query(sql `SELECT "objectId" FROM ${table} WHERE ("objectId" COLLATE "C") > ${after}::text AND "createdAt" < ${cutoff}::timestamptz
        ORDER BY ("objectId" COLLATE "C") LIMIT ${PAGE}`);
        for (const r of rows)
            if (!keep.has(r.objectId))
                doomed.push(r.objectId);
        if (rows.length < PAGE)
            break;
        after = rows[rows.length - 1].objectId;
    }
    for (let i = 0; i < doomed.length; i += PAGE) {
        const ids = doomed.slice(i, i + PAGE);
        await deps.target.db.transaction(async (tx) => {
            await tx.query(sql `DELETE FROM ${table} WHERE "objectId" = ANY(${ids}::text[])`);
            await deleteOwnedRelations(tx, className, ids);
            if (className === '_User')
                await tx.query(sql `DELETE FROM _larder_auth_bindings WHERE user_id = ANY(${ids}::text[])`);
        });
    }
    return { sourceCount: keep.size, deleted: doomed.length };
}
//# sourceMappingURL=sync-reconcile.js.map