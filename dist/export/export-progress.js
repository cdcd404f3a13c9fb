/**
 * The checkpoint of a running export, stored in the job row after every page: for each spool
 * file (one per archive entry), how many bytes and rows are written and the keyset cursor of the
 * last row. A resumed job keeps complete files, cuts a partial file back to its checkpoint and
 * reads on from the cursor, so a restart neither repeats nor loses a row.
 */
import { isPlainObject } from '../objects/decode-value.js';
/** Reads a stored checkpoint; anything unexpected counts as "nothing done yet". */
export function parseProgress(value) {
    const files = {};
    const raw = isPlainObject(value) && isPlainObject(value.files) ? value.files : {};
    for (const [name, f] of Object.entries(raw)) {
        if (!isPlainObject(f) || typeof f.bytes !== 'number' || typeof f.rows !== 'number')
            continue;
        files[name] = {
            bytes: f.bytes,
            rows: f.rows,
            complete: f.complete === true,
            ...(typeof f.cursor === 'string' ? { cursor: f.cursor } : {}),
        };
    }
    return { files };
}
//# sourceMappingURL=export-progress.js.map