/**
 * Parses the condition under one field key: a plain value (equality) or an object of `$`
 * operators. Several operators on one key are AND-ed; `$options` belongs to `$regex` and the
 * distance bounds belong to `$nearSphere`, so they are read together with them.
 */
import { ApiError } from '../errors/api-error.ts';
import type { CompareOp, Condition, FieldPath, QueryValue } from './ast.ts';
import { MAX_LIST_VALUES, tooComplex } from './limits.ts';
import { countCondition, invalidQuery, type ParseContext } from './parse-context.ts';
import { parseSelect, parseSubQuery } from './parse-subquery.ts';
import { parseGeoPoint, parseValue } from './parse-value.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { translateRegex } from './regex.ts';

const COMPARE_OPS: Readonly<Record<string, CompareOp>> = {
  $ne: 'ne',
  $lt: 'lt',
  $lte: 'lte',
  $gt: 'gt',
  $gte: 'gte',
};

/** Earth radius in miles and kilometres: the SDKs' factors (distance / radius = radians). */
export const EARTH_RADIUS = { miles: 3958.8, kilometers: 6371.0 } as const;

/** Distance bounds of `$nearSphere` and the unit length of one radian in each. */
export const DISTANCE_BOUNDS: Readonly<Record<string, { bound: 'max' | 'min'; perRadian: number }>> = {
  $maxDistance: { bound: 'max', perRadian: 1 },
  $maxDistanceInRadians: { bound: 'max', perRadian: 1 },
  $maxDistanceInMiles: { bound: 'max', perRadian: EARTH_RADIUS.miles },
  $maxDistanceInKilometers: { bound: 'max', perRadian: EARTH_RADIUS.kilometers },
  $minDistanceInRadians: { bound: 'min', perRadian: 1 },
  $minDistanceInMiles: { bound: 'min', perRadian: EARTH_RADIUS.miles },
  $minDistanceInKilometers: { bound: 'min', perRadian: EARTH_RADIUS.kilometers },
};

/** Every operator accepted under a field key (for messages and tests). */
export const FIELD_OPERATORS: readonly string[] = [
  ...Object.keys(COMPARE_OPS),
  '$in', '$nin', '$all', '$size', '$exists', '$regex', '$options', '$not',
  '$select', '$dontSelect', '$inQuery', '$notInQuery', '$nearSphere', '$within',
  ...Object.keys(DISTANCE_BOUNDS),
];

function has(obj: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Parses whatever stands under a field key into one or more conditions. */
export function parseFieldCondition(field: FieldPath, raw: unknown, ctx: ParseContext): Condition[] {
  if (isPlainObject(raw)) {
    const keys = Object.keys(raw);
    const operators = keys.filter((k) => k.startsWith('$'));
    if (operators.length > 0) {
      if (operators.length !== keys.length) {
        invalidQuery(`The condition on ${field.join('.')} mixes $ operators with plain keys.`);
      }
      return parseOperators(field, raw, ctx);
    }
  }
  countCondition(ctx.state);
  return [{ kind: 'compare', field, op: 'eq', value: parseValue(raw) }];
}

function parseList(raw: unknown, operator: string): QueryValue[] {
  if (!Array.isArray(raw)) invalidQuery(`${operator} needs an array.`);
  if (raw.length > MAX_LIST_VALUES) tooComplex(`values in one ${operator}`, MAX_LIST_VALUES);
  return raw.map((v) => parseValue(v));
}

function parseOperators(field: FieldPath, obj: Record<string, unknown>, ctx: ParseContext): Condition[] {
  const out: Condition[] = [];
  for (const key of Object.keys(obj)) {
    const raw = obj[key];
    const compareOp = has(COMPARE_OPS, key) ? COMPARE_OPS[key] : undefined;
    if (compareOp) {
      out.push({ kind: 'compare', field, op: compareOp, value: parseValue(raw) });
    } else if (has(DISTANCE_BOUNDS, key) || key === '$options') {
      const owner = key === '$options' ? '$regex' : '$nearSphere';
      if (!has(obj, owner)) invalidQuery(`${key} can only be used together with ${owner}.`);
      continue; // read together with its owner, not a condition of its own
    } else {
      out.push(parseOperator(field, key, raw, obj, ctx));
    }
    countCondition(ctx.state);
  }
  return out;
}

function parseOperator(
  field: FieldPath,
  key: string,
  raw: unknown,
  obj: Record<string, unknown>,
  ctx: ParseContext,
): Condition {
  switch (key) {
    case '$in':
    case '$nin':
      return { kind: 'in', field, negated: key === '$nin', values: parseList(raw, key) };
    case '$all':
      return { kind: 'all', field, values: parseList(raw, key) };
    case '$size':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) invalidQuery('$size needs a non-negative integer.');
      return { kind: 'size', field, size: raw };
    case '$exists':
      if (typeof raw !== 'boolean') invalidQuery('$exists needs true or false.');
      return { kind: 'exists', field, exists: raw };
    case '$regex':
      return parseRegex(field, raw, obj.$options);
    case '$not':
      return parseNot(field, raw);
    case '$inQuery':
    case '$notInQuery':
      return { kind: 'inQuery', field, negated: key === '$notInQuery', query: parseSubQuery(raw, key, ctx) };
    case '$select':
    case '$dontSelect':
      return parseSelect(field, raw, key === '$dontSelect', ctx);
    case '$nearSphere':
      if (ctx.scope.inCompound) invalidQuery('$nearSphere cannot be used inside $or or $and.');
      return parseNear(field, raw, obj);
    case '$within':
      return parseWithin(field, raw);
    default:
      return invalidQuery(`Unknown operator ${JSON.stringify(key.slice(0, 100))} on ${field.join('.')}; supported: ${FIELD_OPERATORS.join(' ')}.`);
  }
}

function parseRegex(field: FieldPath, raw: unknown, options: unknown): Extract<Condition, { kind: 'regex' }> {
  if (typeof raw !== 'string') throw new ApiError('invalidRegex', '$regex needs a string pattern.');
  if (options !== undefined && typeof options !== 'string') throw new ApiError('invalidRegex', '$options needs a string.');
  const opts = options ?? '';
  return { kind: 'regex', field, source: raw, options: opts, pattern: translateRegex(raw, opts) };
}

/**
 * `{$not: {$regex, $options?}}`: the negation of a regex, as MongoDB writes it. Only a regex may
 * stand inside; it is what CQL's `not like` and `not regexp` compile to (modules/cql).
 */
function parseNot(field: FieldPath, raw: unknown): Condition {
  if (!isPlainObject(raw) || !has(raw, '$regex') || Object.keys(raw).some((k) => k !== '$regex' && k !== '$options')) {
    invalidQuery('$not takes only {"$regex": ..., "$options": ...}.');
  }
  return { ...parseRegex(field, raw.$regex, raw.$options), negated: true };
}

function parseNear(field: FieldPath, raw: unknown, obj: Record<string, unknown>): Condition {
  const point = parseGeoPoint(raw);
  let maxRadians: number | undefined;
  let minRadians: number | undefined;
  for (const [key, spec] of Object.entries(DISTANCE_BOUNDS)) {
    if (!has(obj, key)) continue;
    const value = obj[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) invalidQuery(`${key} needs a non-negative number.`);
    const radians = value / spec.perRadian;
    if (spec.bound === 'max') {
      if (maxRadians !== undefined) invalidQuery('Give only one $maxDistance bound.');
      maxRadians = radians;
    } else {
      if (minRadians !== undefined) invalidQuery('Give only one $minDistance bound.');
      minRadians = radians;
    }
  }
  return {
    kind: 'near',
    field,
    point,
    ...(maxRadians === undefined ? {} : { maxRadians }),
    ...(minRadians === undefined ? {} : { minRadians }),
  };
}

function parseWithin(field: FieldPath, raw: unknown): Condition {
  if (!isPlainObject(raw) || Object.keys(raw).length !== 1 || !has(raw, '$box')) {
    invalidQuery('$within supports only {$box: [southwest, northeast]}.');
  }
  const box = raw.$box;
  if (!Array.isArray(box) || box.length !== 2) invalidQuery('$box needs two GeoPoints [southwest, northeast].');
  const southwest = parseGeoPoint(box[0]);
  const northeast = parseGeoPoint(box[1]);
  if (southwest.latitude > northeast.latitude) {
    throw new ApiError('invalidGeoPoint', 'The southwest corner of $box must not be north of its northeast corner.');
  }
  // A southwest longitude east of the northeast one is a box across the 180th meridian.
  return { kind: 'box', field, southwest, northeast };
}
