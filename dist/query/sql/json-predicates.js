/**
 * Building blocks for conditions on jsonb values whose type is not known in advance (untyped
 * fields, dotted paths, array elements). They follow the original service (MongoDB):
 * comparisons only match values of the same type (raw jsonb says `true > 5`, so every test is
 * guarded by jsonb_typeof), and a condition on an array matches when the array itself or any of
 * its elements matches. No expression here can raise a cast error on odd data: casts and
 * set-returning functions only ever see values of the right JSON type.
 */
import { raw, sql } from '../../sql/fragment.js';
import { valueToJson } from '../ast.js';
/** SQL TRUE. */
export const TRUE = raw('TRUE');
/** SQL FALSE: the compilation of a condition that can never match (e.g. a type mismatch). */
export const FALSE = raw('FALSE');
/** A value as a jsonb bound parameter (JSON text cast to jsonb, identical on both drivers). */
export function jsonParam(value) {
    return sql `${JSON.stringify(value)}::jsonb`;
}
/** `left <op> right` for an ordering operator. */
export function compareSql(op, left, right) {
    switch (op) {
        case 'lt':
            return sql `${left} < ${right}`;
        case 'lte':
            return sql `${left} <= ${right}`;
        case 'gt':
            return sql `${left} > ${right}`;
        case 'gte':
            return sql `${left} >= ${right}`;
    }
}
/** Negation that treats "unknown" (SQL NULL, e.g. a missing field) as "does not match". */
export function not(condition) {
    return sql `(${condition}) IS NOT TRUE`;
}
/**
 * True when `v` matches `test` itself or has an array element that does: the value and its
 * elements are one candidate set, so `test` (which may hold parameters and sub-queries) is
 * emitted once. Elements are only expanded for arrays, so jsonb_array_elements never fails.
 */
export function anyValue(v, test) {
    return sql `EXISTS (SELECT 1 FROM (SELECT ${v} AS x UNION ALL SELECT jsonb_array_elements(CASE WHEN jsonb_typeof(${v}) = 'array' THEN ${v} ELSE '[]'::jsonb END)) AS c WHERE ${test(sql `c.x`)})`;
}
/** True when some element of the array `v` passes `test` (false for non-arrays). */
export function anyElement(v, test) {
    return sql `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${v}) = 'array' THEN ${v} ELSE '[]'::jsonb END) AS e(x) WHERE ${test(sql `e.x`)})`;
}
/** `{f: null}`: the field is missing, JSON null, or an array holding null. */
export function isNullJson(v) {
    return sql `(${v} IS NULL OR ${v} = 'null'::jsonb OR ${v} @> '[null]'::jsonb)`;
}
/** Values whose stored form is a primitive or a closed typed object (Date, Pointer). */
export function isContainable(value) {
    return value.type !== 'json' && value.type !== 'null';
}
/**
 * Equality on a jsonb value with Mongo's array rule. Primitives, Dates and Pointers use
 * containment (`v @> x` is equality for primitives and for the closed Date/Pointer shapes, and
 * `v @> [x]` is "array contains"); other objects and arrays need exact jsonb equality, because
 * containment of objects is a subset test.
 */
export function jsonEquals(v, value) {
    if (value.type === 'null')
        return isNullJson(v);
    const json = valueToJson(value);
    if (isContainable(value))
        return sql `(${v} @> ${jsonParam(json)} OR ${v} @> ${jsonParam([json])})`;
    return anyValue(v, (x) => sql `${x} = ${jsonParam(json)}`);
}
/** A type-guarded ordering comparison of one jsonb value (no array expansion). */
export function jsonScalarCompare(x, op, value) {
    switch (value.type) {
        case 'number':
            return sql `(jsonb_typeof(${x}) = 'number' AND ${compareSql(op, x, jsonParam(value.value))})`;
        case 'boolean':
            return sql `(jsonb_typeof(${x}) = 'boolean' AND ${compareSql(op, x, jsonParam(value.value))})`;
        case 'string':
            return sql `(jsonb_typeof(${x}) = 'string' AND ${compareSql(op, sql `((${x} #>> '{}') COLLATE "C")`, sql `${value.value}`)})`;
        case 'date':
            return sql `((${x}->>'__type') = 'Date' AND ${compareSql(op, sql `((${x}->>'iso') COLLATE "C")`, sql `${value.iso}`)})`;
        default:
            return undefined; // null, pointers, objects and arrays have no order in the original service
    }
}
/** A regex test of one jsonb value: only strings can match. */
export function jsonRegex(x, pattern) {
    return sql `(jsonb_typeof(${x}) = 'string' AND (${x} #>> '{}') ~ ${pattern})`;
}
/** The values of a list as one jsonb array parameter, expanded as a set for IN. */
export function jsonSet(values) {
    return sql `(SELECT jsonb_array_elements(${jsonParam(values)}))`;
}
//# sourceMappingURL=json-predicates.js.map