import { ApiError, isApiError } from '../errors/api-error.js';
import { checkClassName } from '../schema/names.js';
import { createClassContext, createdObject, insertPrepared, prepareInClass } from '../objects/create-object.js';
import { withFiles } from '../objects/create-object.js';
import { flag } from '../http/query-params.js';
/**
 * Serves a run of consecutive creates in one class: every item is checked on its own (its
 * errors are its own), then all valid rows go to the database in one multi-row insert. If that
 * insert fails as a whole (e.g. two new objects give one new field different types), the
 * valid items are replayed one by one so each gets its own success or error.
 */
export async function runCreateGroup(ctx, className, items, executeOne) {
    checkClassName(className);
    const results = new Array(items.length);
    const prepared = [];
    // Class-level checks once for the run: a refusal (class permission) is every item's error.
    let cls;
    try {
        cls = await createClassContext(ctx, className);
    }
    catch (err) {
        if (!isApiError(err))
            throw err;
        return items.map(() => ({ error: err.toJSON() }));
    }
    const now = new Date().toISOString();
    for (let i = 0; i < items.length; i++) {
        try {
            prepared.push({ index: i, row: await prepareInClass(ctx, cls, items[i].body, now) });
        }
        catch (err) {
            if (!isApiError(err))
                throw err;
            results[i] = { error: err.toJSON() };
        }
    }
    try {
        await insertPrepared(ctx, className, prepared.map((p) => p.row));
    }
    catch (err) {
        if (!isApiError(err))
            throw err;
        for (const p of prepared) {
            try {
                results[p.index] = { success: (await executeOne(items[p.index])).body };
            }
            catch (e) {
                results[p.index] = { error: (isApiError(e) ? e : new ApiError('internal')).toJSON() };
            }
        }
        return results;
    }
    for (const p of prepared) {
        const q = items[p.index].query;
        const full = flag(q, 'fetchWhenSave') || flag(q, 'new');
        results[p.index] = { success: full ? await withFiles(ctx, className, createdObject(p.row)) : { objectId: p.row.objectId, createdAt: p.row.now } };
    }
    return results;
}
//# sourceMappingURL=create-group.js.map