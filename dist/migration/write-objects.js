import { loadSettings } from '../settings/app-settings.js';
import { invalidateRoles } from '../auth/cache-invalidation.js';
import { checkClassName } from '../schema/names.js';
import { prepareRow, RecordError } from './prepare-row.js';
import { lockRowTypes } from './lock-row-types.js';
import { upsertRows } from './upsert-rows.js';
/** Rows per INSERT statement: large enough to amortise round trips, small enough for one lock set. */
export const BATCH_ROWS = 500;
/** Keeps one row per objectId: the newest updatedAt, the later record on a tie. */
function dedupe(rows, skipped) {
    const byId = new Map();
    for (const r of rows) {
        const have = byId.get(r.row.objectId);
        if (have && have.row.updatedAt > r.row.updatedAt) {
            skipped.push({ index: r.index, objectId: r.row.objectId, reason: 'an older copy of an object given again in the same batch' });
            continue;
        }
        if (have)
            skipped.push({ index: have.index, objectId: have.row.objectId, reason: 'an older copy of an object given again in the same batch' });
        byId.set(r.row.objectId, r);
    }
    return [...byId.values()];
}
/** Upserts objects of one class idempotently (see the contract at the top of this file). */
export async function writeObjects(target, className, objects, opts = {}) {
    checkClassName(className);
    const now = opts.now ?? new Date().toISOString();
    const skipped = [];
    const dropped = {};
    const prepared = [];
    objects.forEach((raw, index) => {
        try {
            const row = prepareRow(className, raw, now);
            for (const d of row.dropped)
                dropped[`${d.field}: ${d.reason}`] = (dropped[`${d.field}: ${d.reason}`] ?? 0) + 1;
            prepared.push({ index, row });
        }
        catch (err) {
            if (!(err instanceof RecordError))
                throw err;
            const id = typeof raw === 'object' && raw !== null && 'objectId' in raw && typeof raw.objectId === 'string' ? raw.objectId : undefined;
            skipped.push({ index, objectId: id, reason: err.message });
        }
    });
    const typed = await lockRowTypes(target, className, dedupe(prepared, skipped), skipped);
    let inserted = 0;
    let updated = 0;
    for (let i = 0; i < typed.length; i += BATCH_ROWS) {
        const out = await upsertRows(target.db, className, typed.slice(i, i + BATCH_ROWS));
        inserted += out.inserted;
        updated += out.updated;
        for (const f of out.failed)
            skipped.push({ index: f.index, objectId: f.objectId, reason: f.reason });
    }
    skipped.sort((a, b) => a.index - b.index);
    const unchanged = objects.length - inserted - updated - skipped.length;
    return { received: objects.length, inserted, updated, unchanged, skipped, dropped };
}
/**
 * Tells every running Larder process on this database that users and roles may have changed,
 * so cached sessions and role memberships are read afresh. Call once when a migration ends.
 */
export async function announceImported(target) {
    const settings = await loadSettings(target.db);
    await invalidateRoles({ db: target.db, classes: target.classes, settings });
}
//# sourceMappingURL=write-objects.js.map