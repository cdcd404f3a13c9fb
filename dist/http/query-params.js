import { ApiError } from '../errors/api-error.js';
import { jsonDepth, MAX_JSON_DEPTH } from './json-body.js';
/** A boolean query flag: true, "true" or "1" (and 1) mean yes. */
export function flag(q, name) {
    const v = q[name];
    return v === true || v === 1 || v === 'true' || v === '1';
}
/** A string parameter, or undefined. Arrays (repeated parameters) are refused. */
export function text(q, name) {
    const v = q[name];
    if (v === undefined || v === null)
        return undefined;
    if (typeof v === 'string')
        return v;
    if (typeof v === 'number' || typeof v === 'boolean')
        return String(v);
    throw new ApiError('invalidQuery', `Parameter '${name}' must be a single value.`);
}
/** A JSON parameter (`where`): parsed from a URL string, or taken as is from a batch item. */
export function json(q, name) {
    const v = q[name];
    if (v === undefined || v === null || v === '')
        return undefined;
    if (typeof v !== 'string')
        return v;
    // Same depth limit as request bodies, checked before parsing so that no later recursion
    // ever sees a hostile nesting (batch params were already checked as part of their body).
    if (jsonDepth(v) > MAX_JSON_DEPTH)
        throw new ApiError('invalidJson', `Parameter '${name}' is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    try {
        return JSON.parse(v);
    }
    catch {
        throw new ApiError('invalidJson', `Parameter '${name}' is not valid JSON.`);
    }
}
//# sourceMappingURL=query-params.js.map