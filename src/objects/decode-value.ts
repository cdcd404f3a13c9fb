/**
 * Validates one incoming field value and returns its stored form. Typed values (`__type`) are
 * normalised so that stored documents have one shape per type: equality (AddUnique, Remove,
 * queries) then works on plain jsonb equality.
 */
import { ApiError } from '../errors/api-error.ts';
import { normalizeIso } from '../model/dates.ts';
import type { FieldSchema } from '../model/class-schema.ts';
import { isClassName } from '../model/names.ts';
import { isPlainObject, PROTO_KEY } from '../model/plain-object.ts';
import { isUnstorableText, MAX_VALUE_DEPTH } from '../model/value-rules.ts';


const MAX_OBJECT_ID_LENGTH = 128;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Rejects text PostgreSQL's jsonb cannot hold (NUL, unpaired UTF-16 surrogates). */
export function checkText(text: string, field: string): void {
  // Caught here, a 107 instead of a 500 from jsonb.
  if (isUnstorableText(text)) {
    throw new ApiError('invalidJson', `Invalid text in '${field}': NUL characters and unpaired surrogates are not allowed.`);
  }
}

interface Ctx {
  readonly field: string;
}

function decodeTyped(type: string, v: Record<string, unknown>, ctx: Ctx, topLevel: boolean): unknown {
  switch (type) {
    case 'Date': {
      const iso = normalizeIso(v.iso);
      if (!iso) throw new ApiError('incorrectType', `Invalid Date in '${ctx.field}': expected {"__type":"Date","iso":"YYYY-MM-DDTHH:MM:SS.MMMZ"}.`);
      return { __type: 'Date', iso };
    }
    case 'Bytes': {
      if (typeof v.base64 !== 'string' || !BASE64.test(v.base64)) {
        throw new ApiError('incorrectType', `Invalid Bytes in '${ctx.field}': base64 must be standard base64 without whitespace.`);
      }
      return { __type: 'Bytes', base64: v.base64 };
    }
    case 'Pointer':
      return decodePointer(v, ctx.field);
    case 'GeoPoint': {
      const { latitude, longitude } = v;
      if (typeof latitude !== 'number' || typeof longitude !== 'number' || !Number.isFinite(latitude) || !Number.isFinite(longitude)
        || latitude < -90 || latitude > 90 || longitude < -180 || longitude > 180) {
        throw new ApiError('invalidGeoPoint', `Invalid GeoPoint in '${ctx.field}': latitude must be in [-90, 90] and longitude in [-180, 180].`);
      }
      return { __type: 'GeoPoint', latitude, longitude };
    }
    case 'File': {
      // SDKs send the whole file object (objectId, url, name...); only the reference is stored.
      const id = typeof v.id === 'string' ? v.id : v.objectId;
      if (typeof id !== 'string' || id.length === 0 || id.length > MAX_OBJECT_ID_LENGTH) {
        throw new ApiError('incorrectType', `Invalid File in '${ctx.field}': expected {"__type":"File","id":"<_File objectId>"} of a saved file.`);
      }
      checkText(id, ctx.field);
      return { __type: 'File', id };
    }
    case 'Relation': {
      if (!topLevel) throw new ApiError('incorrectType', `A Relation can only be the value of a top-level field, not inside '${ctx.field}'.`);
      if (!isClassName(v.className)) throw new ApiError('invalidRelation', `Invalid Relation in '${ctx.field}': className must be a class name.`);
      return { __type: 'Relation', className: v.className };
    }
    default:
      throw new ApiError('incorrectType', `Unknown __type ${JSON.stringify(type).slice(0, 64)} in '${ctx.field}'; __type is reserved for Date, Bytes, Pointer, GeoPoint, File and Relation.`);
  }
}

/** Validates a Pointer (106) and returns exactly `{__type, className, objectId}`. */
export function decodePointer(v: Record<string, unknown>, field: string): { __type: 'Pointer'; className: string; objectId: string } {
  const { className, objectId } = v;
  if (!isClassName(className) || typeof objectId !== 'string' || objectId.length === 0 || objectId.length > MAX_OBJECT_ID_LENGTH) {
    throw new ApiError('invalidPointer', `Malformed pointer in '${field}': expected {"__type":"Pointer","className":"<Class>","objectId":"<id>"}.`);
  }
  checkText(objectId, field);
  return { __type: 'Pointer', className, objectId };
}

function decodeObject(v: Record<string, unknown>, ctx: Ctx, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    if (key.includes('$') || key.includes('.')) {
      throw new ApiError('invalidNestedKey', `Invalid key ${JSON.stringify(key)} inside '${ctx.field}': keys in nested objects may not include '$' or '.'.`);
    }
    if (key === PROTO_KEY) {
      throw new ApiError('invalidNestedKey', `Invalid key ${JSON.stringify(key)} inside '${ctx.field}': this name is reserved.`);
    }
    if (key === '__op') {
      throw new ApiError('incorrectType', `Operations (__op) are only allowed as the value of a field, not inside '${ctx.field}'.`);
    }
    checkText(key, ctx.field);
    out[key] = decode(v[key], ctx, depth + 1, false);
  }
  return out;
}

function decode(v: unknown, ctx: Ctx, depth: number, topLevel: boolean): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    checkText(v, ctx.field);
    return v;
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new ApiError('incorrectType', `Invalid number in '${ctx.field}': numbers must be finite.`);
    return v;
  }
  if (depth >= MAX_VALUE_DEPTH) {
    throw new ApiError('invalidJson', `The value of '${ctx.field}' is nested too deeply (more than ${MAX_VALUE_DEPTH} levels).`);
  }
  if (Array.isArray(v)) return v.map((item) => decode(item, ctx, depth + 1, false));
  if (isPlainObject(v)) {
    if (Object.hasOwn(v, '__type')) {
      if (typeof v.__type !== 'string') throw new ApiError('incorrectType', `Invalid __type in '${ctx.field}': __type is reserved.`);
      return decodeTyped(v.__type, v, ctx, topLevel);
    }
    return decodeObject(v, ctx, depth);
  }
  throw new ApiError('invalidJson', `Unsupported value in '${ctx.field}': only JSON values are accepted.`);
}

/**
 * Validates a field's incoming value and returns its stored form (a fresh copy). `field` names
 * the field in error messages; `nested` is true for values below a field (array elements,
 * dotted paths), where a Relation marker makes no sense.
 */
export function decodeValue(value: unknown, field: string, nested = false): unknown {
  return decode(value, { field }, 0, !nested);
}

/** The schema type a stored value implies; null implies none (null does not lock a type). */
export function fieldTypeOf(stored: unknown): FieldSchema | undefined {
  if (stored === null || stored === undefined) return undefined;
  switch (typeof stored) {
    case 'string':
      return { type: 'String' };
    case 'number':
      return { type: 'Number' };
    case 'boolean':
      return { type: 'Boolean' };
    default:
  }
  if (Array.isArray(stored)) return { type: 'Array' };
  if (!isPlainObject(stored)) return undefined;
  switch (stored.__type) {
    case 'Date':
      return { type: 'Date' };
    case 'Bytes':
      return { type: 'Bytes' };
    case 'GeoPoint':
      return { type: 'GeoPoint' };
    case 'File':
      return { type: 'File' };
    case 'Pointer':
      return { type: 'Pointer', className: String(stored.className) };
    case 'Relation':
      return { type: 'Relation', className: String(stored.className) };
    default:
      return { type: 'Object' };
  }
}
