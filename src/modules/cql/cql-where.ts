/**
 * Combining the `where` fragments of CQL predicates. `and` merges fragments into one object when
 * their keys do not clash (`score > 80 and score <= 100` becomes `{score: {$gt: 80, $lte:
 * 100}}`), which keeps a `near` predicate at the top level where the where language requires it
 * (`$nearSphere` may not stand inside `$and` / `$or`); clashing fragments go into `$and`.
 */
import type { JsonObject, JsonValue } from '../../module-api/reads.ts';

function isOperatorObject(v: JsonValue | undefined): v is JsonObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

/** The value of `key` in `acc` combined with `v`, or undefined when the two cannot be merged. */
function mergedMember(acc: Record<string, JsonValue>, key: string, v: JsonValue): JsonValue | undefined {
  if (!Object.hasOwn(acc, key)) return v;
  if (key.startsWith('$')) return undefined;
  const have = acc[key];
  if (!isOperatorObject(have) || !isOperatorObject(v)) return undefined;
  if (Object.keys(v).some((op) => Object.hasOwn(have, op))) return undefined;
  return { ...have, ...v };
}

function tryMerge(acc: Record<string, JsonValue>, part: JsonObject): boolean {
  const merged: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(part)) {
    const m = mergedMember(acc, k, v);
    if (m === undefined) return false;
    merged[k] = m;
  }
  Object.assign(acc, merged);
  return true;
}

/** The conjunction of where fragments. */
export function andOf(parts: readonly JsonObject[]): JsonObject {
  if (parts.length === 1) return parts[0];
  const acc: Record<string, JsonValue> = {};
  const rest: JsonObject[] = [];
  for (const p of parts) if (!tryMerge(acc, p)) rest.push(p);
  if (rest.length) acc.$and = Object.hasOwn(acc, '$and') ? [...(acc.$and as JsonValue[]), ...rest] : rest;
  return acc;
}

/** The disjunction of where fragments. */
export function orOf(parts: readonly JsonObject[]): JsonObject {
  return parts.length === 1 ? parts[0] : { $or: [...parts] };
}

/** `{field: value}` with the field path written as the where language writes it (`a.b`). */
export function onField(field: string, value: JsonValue): JsonObject {
  return { [field]: value };
}
