import { ApiError } from '../errors/api-error.js';
import { aclClause } from '../query/sql/compile-where.js';
import { ident, sql } from '../sql/fragment.js';
import { encodeOwnedRow } from './encode.js';
import { OBJECT_COLUMNS } from './object-row.js';
/** Most include paths in one request, and most segments in one path. */
export const MAX_INCLUDE_PATHS = 50;
export const MAX_INCLUDE_DEPTH = 8;
/** Parses `include` ("a, b.c"): spaces tolerated, as the original service does. */
export function parseInclude(include) {
    if (!include)
        return [];
    const paths = include.split(',').map((s) => s.trim()).filter(Boolean).map((s) => s.split('.'));
    if (paths.length > MAX_INCLUDE_PATHS)
        throw new ApiError('invalidQuery', `At most ${MAX_INCLUDE_PATHS} include paths are allowed.`);
    for (const p of paths) {
        if (p.length > MAX_INCLUDE_DEPTH)
            throw new ApiError('invalidQuery', `Include paths may have at most ${MAX_INCLUDE_DEPTH} levels.`);
        if (p.some((s) => !/^[A-Za-z0-9_]+$/.test(s)))
            throw new ApiError('invalidKeyName', `Invalid include path '${p.join('.').slice(0, 100)}'.`);
    }
    return paths;
}
function isPointer(v) {
    if (typeof v !== 'object' || v === null)
        return false;
    const p = v;
    return p.__type === 'Pointer' && typeof p.className === 'string' && typeof p.objectId === 'string';
}
/**
 * Replaces pointers on the include paths with the objects they point to, in place: one query
 * per (path level, class), never one per object. Pointers to objects the caller cannot read,
 * or to missing objects, stay plain pointers.
 */
export async function resolveIncludes(deps, objects, paths) {
    const byHead = new Map();
    for (const [head, ...rest] of paths) {
        const list = byHead.get(head) ?? [];
        if (rest.length)
            list.push(rest);
        byHead.set(head, list);
    }
    for (const [head, rests] of byHead) {
        const slots = [];
        for (const obj of objects) {
            const v = Object.hasOwn(obj, head) ? obj[head] : undefined;
            if (isPointer(v))
                slots.push({ holder: obj, key: head, ptr: v });
            else if (Array.isArray(v))
                v.forEach((item, i) => isPointer(item) && slots.push({ holder: v, key: i, ptr: item }));
        }
        if (!slots.length)
            continue;
        const fetched = await fetchPointed(deps, slots.map((s) => s.ptr));
        const resolved = [...fetched.values()];
        if (rests.length && resolved.length)
            await resolveIncludes(deps, resolved, rests);
        for (const s of slots) {
            const obj = fetched.get(`${s.ptr.className}/${s.ptr.objectId}`);
            if (!obj)
                continue;
            const value = { __type: 'Pointer', className: s.ptr.className, ...obj };
            if (Array.isArray(s.holder))
                s.holder[s.key] = value;
            else
                s.holder[s.key] = value;
        }
    }
}
async function fetchPointed(deps, pointers) {
    const ids = new Map();
    for (const p of pointers) {
        const set = ids.get(p.className) ?? new Set();
        set.add(p.objectId);
        ids.set(p.className, set);
    }
    const out = new Map();
    for (const [className, set] of ids) {
        const schema = await deps.classes.find(className, deps.db);
        if (!schema)
            continue;
        if (deps.permits && !(await deps.permits(className)))
            continue;
        const rows = await deps.db.query(sql `SELECT ${OBJECT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ANY(${[...set]}::text[]) AND ${aclClause(deps.readers)}`);
        for (const r of rows)
            out.set(`${className}/${r.objectId}`, encodeOwnedRow(r, { className, withAcl: false, master: deps.readers === null, schema }));
    }
    return out;
}
//# sourceMappingURL=include.js.map