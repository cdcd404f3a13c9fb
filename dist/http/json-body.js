import { ApiError } from '../errors/api-error.js';
/** Deepest nesting a request body may have; deeper bodies are refused before any work. */
export const MAX_JSON_DEPTH = 64;
/** Depth of the deepest nesting in JSON text, counted without parsing (strings skipped). */
export function jsonDepth(text) {
    let depth = 0;
    let max = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
            if (c === 92)
                i++; // backslash escapes the next char
            else if (c === 34)
                inString = false;
        }
        else if (c === 34)
            inString = true;
        else if (c === 123 || c === 91) {
            if (++depth > max)
                max = depth;
        }
        else if (c === 125 || c === 93)
            depth--;
    }
    return max;
}
/** Parses a request body: empty means no body; anything else must be JSON within limits (107). */
export function parseJsonBody(text) {
    if (text.trim() === '')
        return undefined;
    if (jsonDepth(text) > MAX_JSON_DEPTH)
        throw new ApiError('invalidJson', `JSON is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    try {
        return JSON.parse(text);
    }
    catch {
        throw new ApiError('invalidJson');
    }
}
//# sourceMappingURL=json-body.js.map