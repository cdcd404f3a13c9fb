import { ApiError } from '../errors/api-error.js';
import { encodeRow } from '../objects/encode.js';
import { expandFiles } from '../objects/expand-files.js';
import { compileFilter } from '../objects/find-objects.js';
import { OBJECT_COLUMNS } from '../objects/object-row.js';
import { projectKeys } from '../objects/project-keys.js';
import { assertNever } from '../query/ast.js';
import { ident, sql } from '../sql/fragment.js';
import { signCursor, verifyCursor } from './scan-cursor.js';
import { afterCursor, resolveScanKey, scanOrder } from './scan-key.js';
/** Rows per scan page when `limit` is not given. */
export const DEFAULT_SCAN_LIMIT = 100;
/** Largest scan page. */
export const MAX_SCAN_LIMIT = 1000;
/**
 * Resolves a scan's `limit`: absent gives 100; otherwise it must be an integer from 1 to 1000.
 * Unlike class queries (where an out-of-range limit quietly becomes 100) a scan refuses it with
 * 102: a scan pages through a whole class, and a silently different page size is a surprise.
 */
export function parseScanLimit(raw) {
    if (raw === undefined || raw === null || raw === '')
        return DEFAULT_SCAN_LIMIT;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_SCAN_LIMIT) {
        throw new ApiError('invalidQuery', `Scan limit must be an integer from 1 to ${MAX_SCAN_LIMIT}, got ${JSON.stringify(raw).slice(0, 40)}.`);
    }
    return n;
}
/** True when the condition constrains the top-level field `name` (inner queries are other classes). */
export function mentionsField(cond, name) {
    switch (cond.kind) {
        case 'and':
        case 'or':
            return cond.conditions.some((c) => mentionsField(c, name));
        case 'relatedTo':
            return false;
        case 'compare':
        case 'in':
        case 'all':
        case 'size':
        case 'exists':
        case 'regex':
        case 'inQuery':
        case 'select':
        case 'near':
        case 'box':
            return cond.field[0] === name;
        default:
            return assertNever(cond);
    }
}
/**
 * One page of a scan (master key only: no ACL filter). Pages are keyset pages ordered by the
 * scan key then objectId; one row more than the limit is read to know whether a next page
 * exists, so the last page always says `cursor: null`. Internal files (rows of _File with a
 * `key`) come without their url, as the spec says.
 */
export async function scanObjects(ctx, className, q, now = Date.now) {
    if (!ctx.master)
        throw new ApiError('masterKeyRequired', 'Scan requires the master key.');
    const schema = await ctx.app.classes.find(className);
    if (!schema)
        return { results: [], cursor: null };
    const key = resolveScanKey(q.scanKey, schema);
    const scanKey = `${key.descending ? '-' : ''}${key.name}`;
    const { filter, cond } = compileFilter(schema, q.where, ctx, null);
    if (q.scanKey !== undefined && q.scanKey.trim() !== '' && mentionsField(cond, key.name)) {
        throw new ApiError('invalidQuery', `The scan_key '${key.name}' must not appear in where; the scan pages by it.`);
    }
    const secret = ctx.app.keys.serverSecret;
    const after = q.cursor ? verifyCursor(secret, q.cursor, { className, scanKey, now: now() }) : undefined;
    const resume = after ? afterCursor(key, after.lastValue, after.lastId) : sql `TRUE`;
    const rows = await ctx.app.db.query(sql `SELECT ${OBJECT_COLUMNS}, ${key.text} AS _scan_value FROM ${ident(className)}
      WHERE (${filter}) AND ${resume} ORDER BY ${scanOrder(key)} LIMIT ${q.limit + 1}`);
    const more = rows.length > q.limit;
    const page = more ? rows.slice(0, q.limit) : rows;
    const last = page[page.length - 1];
    const cursor = more && last ? signCursor(secret, { className, scanKey, lastValue: last._scan_value, lastId: last.objectId, issuedAt: now() }) : null;
    const objects = page.map((r) => {
        const o = encodeRow(r, { className, withAcl: q.returnACL, master: true });
        if (className === '_File' && typeof o.key === 'string')
            delete o.url;
        return o;
    });
    await expandFiles(ctx.app.db, objects);
    return { results: q.keys ? objects.map((o) => projectKeys(o, q.keys)) : objects, cursor };
}
//# sourceMappingURL=scan-objects.js.map