import { ApiError } from '../errors/api-error.js';
import { parseInclude } from '../objects/include.js';
import { parseKeys } from '../objects/project-keys.js';
import { FORBIDDEN_SEGMENTS } from '../query/parse-key.js';
import { text } from './query-params.js';
const TOP_SEGMENT = /^[A-Za-z0-9_]{1,128}$/;
const MAX_SEGMENT_LENGTH = 128;
/** Most comma-separated entries in one `keys` parameter (a class has at most 300 fields). */
export const MAX_KEYS_ENTRIES = 500;
function badKey(path, why) {
    throw new ApiError('invalidKeyName', `Invalid key name ${JSON.stringify(path.slice(0, 200))} in keys/include: ${why}.`);
}
/**
 * Checks one dotted field path of `keys` or `include` by the same rules as `where` keys: a
 * field name of letters, digits and underscore, then non-empty nested segments that do not start
 * with `$`, and never a prototype name. Projection and include run in memory on plain objects,
 * so a `__proto__` segment would otherwise walk into Object.prototype.
 */
function checkPath(path) {
    const segments = path.split('.');
    if (!TOP_SEGMENT.test(segments[0]))
        badKey(path, 'the field name is empty or has invalid characters');
    for (const s of segments) {
        if (FORBIDDEN_SEGMENTS.has(s))
            badKey(path, `${JSON.stringify(s)} is not allowed`);
        if (s === '' || s.length > MAX_SEGMENT_LENGTH || s.startsWith('$') || s.includes('\u0000'))
            badKey(path, 'bad nested key');
    }
}
/** The `keys` parameter ("a,b.c,-d"), validated (105), as a selection. */
export function keysParam(q) {
    const raw = text(q, 'keys');
    if (raw === undefined)
        return undefined;
    const entries = raw.split(',').map((k) => k.trim()).filter(Boolean);
    if (entries.length > MAX_KEYS_ENTRIES)
        throw new ApiError('invalidQuery', `At most ${MAX_KEYS_ENTRIES} keys are allowed.`);
    for (const e of entries)
        checkPath(e.startsWith('-') ? e.slice(1) : e);
    return parseKeys(raw);
}
/** The `include` parameter ("a, b.c"), validated (105, limits 102), as paths. */
export function includeParam(q) {
    const paths = parseInclude(text(q, 'include'));
    for (const p of paths)
        checkPath(p.join('.'));
    return paths;
}
//# sourceMappingURL=key-params.js.map