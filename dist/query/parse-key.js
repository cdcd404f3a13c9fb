/**
 * Field names in `where`, `order` and `$select.key`. The first segment is a class field and must
 * be letters, digits and underscore (error 105, LeanCloud's key rule). Further segments go into
 * nested objects (`address.city`), whose keys LeanCloud allows to hold other characters, so they
 * are only required to be non-empty and not start with `$`. Prototype-polluting names are never
 * accepted as any segment.
 */
import { ApiError } from '../errors/api-error.js';
import { MAX_VALUE_DEPTH } from './limits.js';
import { checkString } from './parse-value.js';
/** Columns every class table has; they cannot be followed by a dotted path. */
export const RESERVED_FIELDS = ['objectId', 'createdAt', 'updatedAt'];
/**
 * Names that would change a prototype if ever assigned as a property name. Other built-in names
 * (`constructor`, `toString`) are ordinary fields: code reading them uses own-property lookups.
 */
export const FORBIDDEN_SEGMENTS = new Set(['__proto__']);
const TOP_SEGMENT = /^[A-Za-z0-9_]{1,128}$/;
const MAX_SEGMENT_LENGTH = 128;
/** True for objectId, createdAt and updatedAt. */
export function isReservedField(name) {
    return RESERVED_FIELDS.includes(name);
}
function badKey(key, why) {
    throw new ApiError('invalidKeyName', `Invalid key name ${JSON.stringify(key.slice(0, 200))}: ${why}. Keys are case-sensitive and 'a-zA-Z0-9_' are the only valid characters.`);
}
/** Splits and validates a field key; errors are 105 (invalid key) or 102 (ACL is not queryable). */
export function parseFieldKey(key) {
    checkString(key);
    const segments = key.split('.');
    if (segments.length > MAX_VALUE_DEPTH)
        badKey(key, `more than ${MAX_VALUE_DEPTH} dotted segments`);
    const [top, ...rest] = segments;
    if (!TOP_SEGMENT.test(top))
        badKey(key, 'the field name is empty or has invalid characters');
    for (const segment of segments) {
        if (FORBIDDEN_SEGMENTS.has(segment))
            badKey(key, `${JSON.stringify(segment)} is not allowed`);
    }
    for (const segment of rest) {
        if (segment === '' || segment.length > MAX_SEGMENT_LENGTH || segment.startsWith('$')) {
            badKey(key, 'nested keys must be non-empty, at most 128 characters and not start with $');
        }
    }
    if (rest.length > 0 && isReservedField(top))
        badKey(key, `${top} has no nested fields`);
    if (top === 'ACL')
        throw new ApiError('invalidQuery', 'ACL cannot be used in a query.');
    return [top, ...rest];
}
//# sourceMappingURL=parse-key.js.map