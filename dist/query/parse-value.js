/**
 * Parses the values conditions compare with: scalars, LeanCloud typed values (`__type`) and
 * plain JSON. Strings are checked once here so that no value can make the database fail on
 * encoding (PostgreSQL text and jsonb reject NUL and lone surrogates, which would be a 500).
 */
import { ApiError } from '../errors/api-error.js';
import { MAX_VALUE_DEPTH, tooComplex } from './limits.js';
/** True for a JSON object (not null, not an array). */
export function isPlainObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Rejects strings PostgreSQL cannot store or compare (NUL, unpaired surrogates). */
export function checkString(value) {
    if (value.includes('\u0000') || LONE_SURROGATE.test(value)) {
        throw new ApiError('invalidQuery', 'Strings in a query may not contain NUL characters or unpaired surrogates.');
    }
    return value;
}
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/**
 * Normalises a Date `iso` to the stored form `YYYY-MM-DDTHH:MM:SS.mmmZ` so that string
 * comparison of stored and queried dates is chronological. A time without a zone is UTC.
 */
export function normalizeIso(iso) {
    const m = typeof iso === 'string' ? ISO_DATE.exec(iso) : null;
    if (!m)
        throw new ApiError('invalidQuery', `Invalid Date value: ${JSON.stringify(iso)}; expected an ISO 8601 string.`);
    const [year0, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
    const daysInMonth = new Date(Date.UTC(year0, month, 0)).getUTCDate();
    // Date.parse rolls 2020-02-30 over to March 1st; a calendar mistake must be an error.
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
        throw new ApiError('invalidQuery', `Invalid Date value: ${JSON.stringify(iso)}.`);
    }
    const text = m[4] !== undefined && m[8] === undefined ? `${iso}Z` : iso;
    const time = Date.parse(text);
    const year = new Date(time).getUTCFullYear();
    if (Number.isNaN(time) || year < 0 || year > 9999) {
        throw new ApiError('invalidQuery', `Invalid Date value: ${JSON.stringify(iso)}.`);
    }
    return new Date(time).toISOString();
}
/** Parses `{__type:'Pointer', className, objectId}` (also a dereferenced `Object`); 106 if malformed. */
export function parsePointer(value) {
    if (!isPlainObject(value) ||
        (value.__type !== 'Pointer' && value.__type !== 'Object') ||
        typeof value.className !== 'string' ||
        typeof value.objectId !== 'string' ||
        value.className === '' ||
        value.objectId === '') {
        throw new ApiError('invalidPointer', `Malformed pointer: ${JSON.stringify(value)?.slice(0, 200)}.`);
    }
    return { className: checkString(value.className), objectId: checkString(value.objectId) };
}
/** Parses a GeoPoint and checks its ranges (error 302). */
export function parseGeoPoint(value) {
    if (isPlainObject(value) && (value.__type === 'GeoPoint' || value.__type === undefined)) {
        const { latitude, longitude } = value;
        if (typeof latitude === 'number' &&
            typeof longitude === 'number' &&
            Math.abs(latitude) <= 90 &&
            Math.abs(longitude) <= 180) {
            return { latitude, longitude };
        }
    }
    throw new ApiError('invalidGeoPoint', `Invalid GeoPoint ${JSON.stringify(value)?.slice(0, 200)}: latitude must be in [-90, 90] and longitude in [-180, 180].`);
}
/**
 * Copies a JSON value, normalising typed values inside it (Date iso, File to `{__type, id}`) and
 * checking strings, numbers and depth.
 */
export function normalizeJson(value, depth = 0) {
    if (depth > MAX_VALUE_DEPTH)
        tooComplex('levels of nesting inside a value', MAX_VALUE_DEPTH);
    if (value === null || typeof value === 'boolean')
        return value;
    if (typeof value === 'number') {
        if (!Number.isFinite(value))
            throw new ApiError('invalidQuery', 'Numbers in a query must be finite.');
        return value;
    }
    if (typeof value === 'string')
        return checkString(value);
    if (Array.isArray(value))
        return value.map((v) => normalizeJson(v, depth + 1));
    if (isPlainObject(value)) {
        const typed = typedJson(value);
        if (typed !== undefined)
            return typed;
        const out = {};
        for (const key of Object.keys(value)) {
            // defineProperty, not assignment: a "__proto__" key must stay a plain own property.
            Object.defineProperty(out, checkString(key), {
                value: normalizeJson(value[key], depth + 1),
                enumerable: true,
                writable: true,
                configurable: true,
            });
        }
        return out;
    }
    throw new ApiError('invalidQuery', `Unsupported value in query: ${typeof value}.`);
}
/** The stored form of a `__type` value, or undefined for plain objects. */
function typedJson(value) {
    const type = value.__type;
    if (type === undefined)
        return undefined;
    switch (type) {
        case 'Date':
            return { __type: 'Date', iso: normalizeIso(value.iso) };
        case 'Pointer':
        case 'Object': {
            const p = parsePointer(value);
            return { __type: 'Pointer', className: p.className, objectId: p.objectId };
        }
        case 'GeoPoint': {
            const g = parseGeoPoint(value);
            return { __type: 'GeoPoint', latitude: g.latitude, longitude: g.longitude };
        }
        case 'Bytes':
            if (typeof value.base64 !== 'string')
                throw new ApiError('invalidQuery', 'Bytes values need a base64 string.');
            return { __type: 'Bytes', base64: checkString(value.base64) };
        case 'File': {
            // SDKs send the whole file object; the stored reference is {__type: 'File', id}.
            const id = typeof value.id === 'string' ? value.id : value.objectId;
            if (typeof id !== 'string')
                throw new ApiError('invalidQuery', 'File values need an id.');
            return { __type: 'File', id: checkString(id) };
        }
        default:
            throw new ApiError('invalidQuery', `Unsupported __type in query value: ${JSON.stringify(type)?.slice(0, 50)}.`);
    }
}
/** Parses a value a condition compares with. */
export function parseValue(raw) {
    const value = normalizeJson(raw);
    if (value === null)
        return { type: 'null' };
    if (typeof value === 'boolean')
        return { type: 'boolean', value };
    if (typeof value === 'number')
        return { type: 'number', value };
    if (typeof value === 'string')
        return { type: 'string', value };
    if (isPlainObject(value)) {
        const obj = value;
        if (obj.__type === 'Date')
            return { type: 'date', iso: obj.iso };
        if (obj.__type === 'Pointer') {
            return { type: 'pointer', className: obj.className, objectId: obj.objectId };
        }
    }
    return { type: 'json', value };
}
//# sourceMappingURL=parse-value.js.map