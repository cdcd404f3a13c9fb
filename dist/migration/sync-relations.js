/**
 * Relation columns in `larder sync`. The REST API never returns a relation's members with the
 * owner object, so for every copied owner and every Relation column of its class (from the
 * source's /1.1/schemas) the sync asks the target class for `$relatedTo` that owner, and makes
 * the target's membership exactly that set (adding and removing rows of `_larder_relations`).
 * This costs at least one GET per owner object and Relation column: with 10,000 posts and one
 * relation column, 10,000 requests per full copy (run `RELATION_CONCURRENCY` at a time), and
 * again for every owner an incremental round sees changed (adding or removing members changes
 * the owner's updatedAt on LeanCloud and Larder alike).
 */
import { applyRelationChanges } from '../objects/relation-rows.js';
import { sql } from '../sql/fragment.js';
import { relatedIds } from './sync-reader.js';
/** Relation queries in flight at once, per page of owners. */
export const RELATION_CONCURRENCY = 4;
/** The Relation columns of a class in the source's schema (those that name their target class). */
export function relationColumns(fields) {
    const columns = [];
    const unnamed = [];
    for (const [key, f] of Object.entries(fields)) {
        if (f.type !== 'Relation')
            continue;
        if (f.className)
            columns.push({ key, targetClass: f.className });
        else
            unnamed.push(key);
    }
    return { columns, unnamed };
}
/**
 * Registers the Relation columns in the target's catalogue (creating the class if needed), so
 * `$relatedTo` and `/1.1/schemas` work on the target even for columns with no members yet.
 */
export async function registerRelationColumns(target, className, columns) {
    if (!columns.length)
        return;
    const types = Object.fromEntries(columns.map((c) => [c.key, { type: 'Relation', className: c.targetClass }]));
    const schema = await target.db.transaction(async (tx) => {
        await target.classes.ensureClass(tx, className);
        return target.classes.lockFields(tx, className, types);
    });
    target.classes.publish(schema);
}
/** Makes the target's members of one owner's relation exactly `ids`; returns rows added + removed. */
export async function replaceMembers(target, ownerClass, ownerId, col, ids) {
    return target.db.transaction(async (tx) => {
        const rows = await tx.query(sql `SELECT target_id FROM _larder_relations WHERE owner_class = ${ownerClass} AND owner_id = ${ownerId} AND key = ${col.key} FOR UPDATE`);
        const have = new Set(rows.map((r) => r.target_id));
        const want = new Set(ids);
        const add = [...want].filter((id) => !have.has(id));
        const remove = [...have].filter((id) => !want.has(id));
        await applyRelationChanges(tx, ownerClass, ownerId, [
            { action: 'add', key: col.key, targetClass: col.targetClass, targetIds: add },
            { action: 'remove', key: col.key, targetClass: col.targetClass, targetIds: remove },
        ]);
        return add.length + remove.length;
    });
}
/** Runs `work` over `items`, at most `limit` at a time; the first failure rejects. */
async function pool(items, limit, work) {
    let next = 0;
    const worker = async () => {
        while (next < items.length)
            await work(items[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
/** Copies the membership of every Relation column of the given owners; returns rows changed. */
export async function syncRelations(deps, ownerClass, ownerIds, columns) {
    if (!columns.length || !ownerIds.length)
        return 0;
    let changed = 0;
    const jobs = ownerIds.flatMap((ownerId) => columns.map((col) => ({ ownerId, col })));
    await pool(jobs, RELATION_CONCURRENCY, async ({ ownerId, col }) => {
        const ids = await relatedIds(deps.client, { className: ownerClass, objectId: ownerId }, col.key, col.targetClass);
        const n = await replaceMembers(deps.target, ownerClass, ownerId, col, ids);
        changed += n; // not `changed += await ...`: that would read `changed` before the await and lose counts
    });
    return changed;
}
//# sourceMappingURL=sync-relations.js.map