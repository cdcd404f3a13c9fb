/**
 * Parses the values conditions compare with: scalars, LeanCloud typed values (`__type`) and
 * plain JSON. Strings are checked once here so that no value can make the database fail on
 * encoding (PostgreSQL text and jsonb reject NUL and lone surrogates, which would be a 500).
 */
import { ApiError } from '../errors/api-error.ts';
import { normalizeIso } from '../model/dates.ts';
import type { GeoPoint, JsonObject, JsonValue, PointerRef, QueryValue } from './ast.ts';
import { tooComplex } from './limits.ts';
import { isUnstorableText, MAX_VALUE_DEPTH } from '../model/value-rules.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** Rejects strings PostgreSQL cannot store or compare (NUL, unpaired surrogates). */
export function checkString(value: string): string {
  if (isUnstorableText(value)) {
    throw new ApiError('invalidQuery', 'Strings in a query may not contain NUL characters or unpaired surrogates.');
  }
  return value;
}

/** A Date `iso` in its stored form (model/dates.ts, shared with writes); 102 when invalid. */
function queryIso(iso: unknown): string {
  const out = normalizeIso(iso);
  if (out === undefined) throw new ApiError('invalidQuery', `Invalid Date value: ${JSON.stringify(iso)?.slice(0, 80)}; expected an ISO 8601 string.`);
  return out;
}

/** Parses `{__type:'Pointer', className, objectId}` (also a dereferenced `Object`); 106 if malformed. */
export function parsePointer(value: unknown): PointerRef {
  if (
    !isPlainObject(value) ||
    (value.__type !== 'Pointer' && value.__type !== 'Object') ||
    typeof value.className !== 'string' ||
    typeof value.objectId !== 'string' ||
    value.className === '' ||
    value.objectId === ''
  ) {
    throw new ApiError('invalidPointer', `Malformed pointer: ${JSON.stringify(value)?.slice(0, 200)}.`);
  }
  return { className: checkString(value.className), objectId: checkString(value.objectId) };
}

/** Parses a GeoPoint and checks its ranges (error 302). */
export function parseGeoPoint(value: unknown): GeoPoint {
  if (isPlainObject(value) && (value.__type === 'GeoPoint' || value.__type === undefined)) {
    const { latitude, longitude } = value;
    if (
      typeof latitude === 'number' &&
      typeof longitude === 'number' &&
      Math.abs(latitude) <= 90 &&
      Math.abs(longitude) <= 180
    ) {
      return { latitude, longitude };
    }
  }
  throw new ApiError(
    'invalidGeoPoint',
    `Invalid GeoPoint ${JSON.stringify(value)?.slice(0, 200)}: latitude must be in [-90, 90] and longitude in [-180, 180].`,
  );
}

/**
 * Copies a JSON value, normalising typed values inside it (Date iso, File to `{__type, id}`) and
 * checking strings, numbers and depth.
 */
export function normalizeJson(value: unknown, depth = 0): JsonValue {
  if (depth > MAX_VALUE_DEPTH) tooComplex('levels of nesting inside a value', MAX_VALUE_DEPTH);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ApiError('invalidQuery', 'Numbers in a query must be finite.');
    return value;
  }
  if (typeof value === 'string') return checkString(value);
  if (Array.isArray(value)) return value.map((v) => normalizeJson(v, depth + 1));
  if (isPlainObject(value)) {
    const typed = typedJson(value);
    if (typed !== undefined) return typed;
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(value)) {
      // defineProperty, not assignment: a "__proto__" key must stay a plain own property.
      Object.defineProperty(out, checkString(key), {
        value: normalizeJson(value[key], depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out as JsonObject;
  }
  throw new ApiError('invalidQuery', `Unsupported value in query: ${typeof value}.`);
}

/** The stored form of a `__type` value, or undefined for plain objects. */
function typedJson(value: Record<string, unknown>): JsonValue | undefined {
  const type = value.__type;
  if (type === undefined) return undefined;
  switch (type) {
    case 'Date':
      return { __type: 'Date', iso: queryIso(value.iso) };
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
      if (typeof value.base64 !== 'string') throw new ApiError('invalidQuery', 'Bytes values need a base64 string.');
      return { __type: 'Bytes', base64: checkString(value.base64) };
    case 'File': {
      // SDKs send the whole file object; the stored reference is {__type: 'File', id}.
      const id = typeof value.id === 'string' ? value.id : value.objectId;
      if (typeof id !== 'string') throw new ApiError('invalidQuery', 'File values need an id.');
      return { __type: 'File', id: checkString(id) };
    }
    default:
      throw new ApiError('invalidQuery', `Unsupported __type in query value: ${JSON.stringify(type)?.slice(0, 50)}.`);
  }
}

/** Parses a value a condition compares with. */
export function parseValue(raw: unknown): QueryValue {
  const value = normalizeJson(raw);
  if (value === null) return { type: 'null' };
  if (typeof value === 'boolean') return { type: 'boolean', value };
  if (typeof value === 'number') return { type: 'number', value };
  if (typeof value === 'string') return { type: 'string', value };
  if (isPlainObject(value)) {
    const obj = value as JsonObject;
    if (obj.__type === 'Date') return { type: 'date', iso: obj.iso as string };
    if (obj.__type === 'Pointer') {
      return { type: 'pointer', className: obj.className as string, objectId: obj.objectId as string };
    }
  }
  return { type: 'json', value };
}
