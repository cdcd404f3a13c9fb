/**
 * Compiles the value conditions (equality, comparisons, `$in`/`$nin`, `$all`, `$size`,
 * `$exists`, `$regex`) for each kind of field target. Typed scalar fields compile to their index
 * expression compared with a typed parameter (`expr = ANY($1::numeric[])`, no per-row function);
 * a value of another type than the field's can never match and compiles to FALSE, as in the
 * original service. Negations (`$ne`, `$nin`) are `IS NOT TRUE` of the positive form, so missing
 * fields match them.
 */
import { ApiError } from '../../errors/api-error.ts';
import { ident, jsonKey, type Sql, sql } from '../../sql/fragment.ts';
import { type CompareOp, type FieldPath, type JsonValue, type QueryValue, valueToJson } from '../ast.ts';
import { columnForOrder, type FieldTarget, jsonPath, type ScalarType, scalarExpr } from './field-expr.ts';
import {
  anyElement, anyValue, compareSql, FALSE, isContainable, isNullJson, jsonEquals, jsonParam,
  jsonRegex, jsonScalarCompare, jsonSet, TRUE,
} from './json-predicates.ts';

type OrderOp = Exclude<CompareOp, 'eq' | 'ne'>;

/** Value types that have an order; the rest never match $lt and friends. */
const ORDERED_TYPES: ReadonlySet<QueryValue['type']> = new Set(['number', 'boolean', 'string', 'date']);

/**
 * The reserved columns have one type each, fixed for every class: `objectId` is a String,
 * `createdAt`/`updatedAt` are Dates. A value of another type (null aside, which simply matches
 * nothing) is a client mistake, not a question with an empty answer: 102, so that a page that
 * compares createdAt with a string or a number does not silently come back empty.
 */
function checkColumnValue(name: string, value: QueryValue): void {
  if (value.type === 'null') return;
  const expected = name === 'objectId' ? 'string' : 'date';
  if (value.type !== expected) {
    throw new ApiError('invalidQuery', `${name} can only be compared with ${expected === 'date' ? 'a Date ({"__type":"Date","iso":...})' : 'a string'}, not a ${value.type} value.`);
  }
}

/** The typed parameter a value becomes for a scalar field, or undefined on a type mismatch. */
function scalarParam(type: ScalarType, value: QueryValue): Sql | undefined {
  if (type === 'String' && value.type === 'string') return sql`${value.value}`;
  if (type === 'Number' && value.type === 'number') return sql`${value.value}::numeric`;
  if (type === 'Boolean' && value.type === 'boolean') return sql`${value.value}::boolean`;
  if (type === 'Date' && value.type === 'date') return sql`${value.iso}`;
  return undefined;
}

/** The jsonb value of a data field target (anything but a column). */
function valueOf(target: Exclude<FieldTarget, { kind: 'column' }>): Sql {
  return target.kind === 'json' ? jsonPath(target.path) : jsonPath([target.name]);
}

/** Pointer equality on a Pointer field: by objectId (indexed), className checked when unknown. */
function pointerEquals(target: FieldTarget & { kind: 'scalar' }, value: QueryValue): Sql {
  if (value.type !== 'pointer') return FALSE;
  if (target.className !== undefined && target.className !== value.className) return FALSE;
  const expr = sql`${scalarExpr(target.name, 'Pointer')} = ${value.objectId}`;
  if (target.className !== undefined) return expr;
  return sql`(${expr} AND (data->${jsonKey(target.name)}->>'className') = ${value.className})`;
}

/**
 * Equality with the array rule through the `data` document: `data @> {"a":{"b":x}}` (also
 * `[x]`) is the same test as on the value but can use a GIN index on `data`. Paths with
 * numeric segments address array positions, which containment cannot express.
 */
function dataContains(path: FieldPath, value: QueryValue): Sql {
  if (!isContainable(value) || path.some((s) => /^\d+$/.test(s))) return jsonEquals(jsonPath(path), value);
  const nest = (leaf: JsonValue): JsonValue =>
    path.reduceRight<JsonValue>((inner, key) => Object.defineProperty({}, key, { value: inner, enumerable: true }), leaf);
  const json = valueToJson(value);
  return sql`(data @> ${jsonParam(nest(json))} OR data @> ${jsonParam(nest([json]))})`;
}

/** `{field: value}`. */
export function compileEquals(target: FieldTarget, value: QueryValue): Sql {
  switch (target.kind) {
    case 'column':
      checkColumnValue(target.name, value);
      if (target.name === 'objectId') return value.type === 'string' ? sql`"objectId" = ${value.value}` : FALSE;
      return value.type === 'date' ? sql`${ident(target.name)} = ${value.iso}::timestamptz` : FALSE;
    case 'scalar': {
      if (value.type === 'null') return isNullJson(valueOf(target));
      if (target.type === 'Pointer') return pointerEquals(target, value);
      const param = scalarParam(target.type, value);
      return param ? sql`${scalarExpr(target.name, target.type)} = ${param}` : FALSE;
    }
    case 'array': {
      // The type lock guarantees an array: "contains" is one GIN-indexable containment.
      if (!isContainable(value)) return jsonEquals(valueOf(target), value);
      return sql`${valueOf(target)} @> ${jsonParam([valueToJson(value)])}`;
    }
    case 'json':
      return dataContains(target.path, value);
    case 'relation':
      throw new Error('relation targets are compiled by compile-relation.ts');
  }
}

/** `$lt $lte $gt $gte`. */
export function compileOrdering(target: FieldTarget, op: OrderOp, value: QueryValue): Sql {
  switch (target.kind) {
    case 'column':
      checkColumnValue(target.name, value);
      if (target.name === 'objectId') return value.type === 'string' ? compareSql(op, columnForOrder('objectId'), sql`${value.value}`) : FALSE;
      return value.type === 'date' ? compareSql(op, ident(target.name), sql`${value.iso}::timestamptz`) : FALSE;
    case 'scalar': {
      const param = target.type === 'Pointer' ? undefined : scalarParam(target.type, value);
      return param ? compareSql(op, scalarExpr(target.name, target.type), param) : FALSE;
    }
    case 'array':
    case 'json': {
      if (!ORDERED_TYPES.has(value.type)) return FALSE;
      return anyValue(valueOf(target), (x) => jsonScalarCompare(x, op, value) ?? FALSE);
    }
    case 'relation':
      throw unsupported('comparisons', target.name);
  }
}

/** `$in` (the caller negates for `$nin`). */
export function compileIn(target: FieldTarget, values: readonly QueryValue[]): Sql {
  const hasNull = values.some((v) => v.type === 'null');
  switch (target.kind) {
    case 'column': {
      for (const v of values) checkColumnValue(target.name, v);
      if (target.name === 'objectId') {
        const ids = values.flatMap((v) => (v.type === 'string' ? [v.value] : []));
        return ids.length ? sql`"objectId" = ANY(${ids}::text[])` : FALSE;
      }
      const isos = values.flatMap((v) => (v.type === 'date' ? [v.iso] : []));
      return isos.length ? sql`${ident(target.name)} = ANY(${isos}::timestamptz[])` : FALSE;
    }
    case 'scalar': {
      const match = scalarIn(target, values);
      const nulls = hasNull ? isNullJson(valueOf(target)) : undefined;
      if (match && nulls) return sql`(${match} OR ${nulls})`;
      return match ?? nulls ?? FALSE;
    }
    case 'array':
    case 'json': {
      const v = valueOf(target);
      const present = values.filter((x) => x.type !== 'null');
      const strings = present.flatMap((x) => (x.type === 'string' ? [x.value] : []));
      let match: Sql | undefined;
      if (target.kind === 'array' && present.length > 0 && strings.length === present.length) {
        match = sql`${v} ?| ${strings}::text[]`; // GIN-indexable "any of these strings"
      } else if (present.length > 0) {
        match = anyValue(v, (x) => sql`${x} IN ${jsonSet(present.map(valueToJson))}`);
      }
      const nulls = hasNull ? isNullJson(v) : undefined;
      if (match && nulls) return sql`(${match} OR ${nulls})`;
      return match ?? nulls ?? FALSE;
    }
    case 'relation':
      throw new Error('relation targets are compiled by compile-relation.ts');
  }
}

function scalarIn(target: FieldTarget & { kind: 'scalar' }, values: readonly QueryValue[]): Sql | undefined {
  const expr = scalarExpr(target.name, target.type);
  const pick = <T>(f: (v: QueryValue) => T | undefined): T[] => values.flatMap((v) => {
    const x = f(v);
    return x === undefined ? [] : [x];
  });
  switch (target.type) {
    case 'String': {
      const xs = pick((v) => (v.type === 'string' ? v.value : undefined));
      return xs.length ? sql`${expr} = ANY(${xs}::text[])` : undefined;
    }
    case 'Number': {
      const xs = pick((v) => (v.type === 'number' ? v.value : undefined));
      return xs.length ? sql`${expr} = ANY(${xs}::numeric[])` : undefined;
    }
    case 'Boolean': {
      const xs = pick((v) => (v.type === 'boolean' ? v.value : undefined));
      return xs.length ? sql`${expr} = ANY(${xs}::boolean[])` : undefined;
    }
    case 'Date': {
      const xs = pick((v) => (v.type === 'date' ? v.iso : undefined));
      return xs.length ? sql`${expr} = ANY(${xs}::text[])` : undefined;
    }
    case 'Pointer': {
      const ptrs = pick((v) =>
        v.type === 'pointer' && (target.className === undefined || target.className === v.className) ? v : undefined,
      );
      if (!ptrs.length) return undefined;
      const match = sql`${expr} = ANY(${ptrs.map((p) => p.objectId)}::text[])`;
      if (target.className !== undefined) return match;
      // Class unknown to the schema: check it too, as (className, objectId) pairs.
      return sql`(${match} AND ((data->${jsonKey(target.name)}->>'className'), ${expr}) IN (SELECT * FROM unnest(${ptrs.map((p) => p.className)}::text[], ${ptrs.map((p) => p.objectId)}::text[])))`;
    }
  }
}

/** `$all`: an array holding every value (an empty list matches nothing, as in MongoDB). */
export function compileAll(target: FieldTarget, values: readonly QueryValue[]): Sql {
  if (values.length === 0) return FALSE;
  if (target.kind !== 'array' && target.kind !== 'json') {
    return sql`(${joinAnd(values.map((v) => compileEquals(target, v)))})`;
  }
  const v = valueOf(target);
  const closed = values.filter(isContainable).map(valueToJson);
  const tests: Sql[] = closed.length ? [sql`${v} @> ${jsonParam(closed)}`] : [];
  for (const value of values) {
    if (!isContainable(value)) tests.push(value.type === 'null' ? sql`${v} @> '[null]'::jsonb` : anyElement(v, (x) => sql`${x} = ${jsonParam(valueToJson(value))}`));
  }
  return tests.length === 1 ? tests[0] : sql`(${joinAnd(tests)})`;
}

function joinAnd(items: Sql[]): Sql {
  return items.reduce((acc, item) => sql`${acc} AND ${item}`);
}

/** `$size`: an array with exactly that many elements. */
export function compileSize(target: FieldTarget, size: number): Sql {
  if (target.kind === 'column' || target.kind === 'scalar') return FALSE;
  if (target.kind === 'relation') throw unsupported('$size', target.name);
  const v = valueOf(target);
  return sql`(CASE WHEN jsonb_typeof(${v}) = 'array' THEN jsonb_array_length(${v}) = ${size}::int ELSE FALSE END)`;
}

/** `$exists`: key present (a JSON null counts as present) or absent. */
export function compileExists(target: FieldTarget, exists: boolean): Sql {
  if (target.kind === 'column') return exists ? TRUE : FALSE;
  const path = target.kind === 'json' ? target.path : [target.name];
  if (path.length === 1) return exists ? sql`(data ? ${jsonKey(path[0])})` : sql`NOT (data ? ${jsonKey(path[0])})`;
  const v = valueOf(target);
  return exists ? sql`(${v} IS NOT NULL)` : sql`(${v} IS NULL)`;
}

/** `$regex` with the pattern already translated to an ARE; strings and arrays of strings match. */
export function compileRegex(target: FieldTarget, pattern: string): Sql {
  switch (target.kind) {
    case 'column':
      return target.name === 'objectId' ? sql`"objectId" ~ ${pattern}` : FALSE;
    case 'scalar':
      return target.type === 'String' ? sql`(data->>${jsonKey(target.name)}) ~ ${pattern}` : FALSE;
    case 'array':
    case 'json':
      return anyValue(valueOf(target), (x) => jsonRegex(x, pattern));
    case 'relation':
      throw unsupported('$regex', target.name);
  }
}

/** Error 102 for an operator that makes no sense on a Relation field. */
export function unsupported(what: string, field: string): ApiError {
  return new ApiError('invalidQuery', `${what} cannot be used on the Relation field ${field}.`);
}
