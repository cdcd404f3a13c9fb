import { ApiError } from '../errors/api-error.ts';
import { isBuiltInClass } from './class-schema.ts';
import { PROTO_KEY } from './plain-object.ts';

const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]{0,59}$/;
/** Longest field name, and longest nested key segment. */
export const MAX_KEY_LENGTH = 128;
const KEY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;
// What reads (where, order, keys, include) may name as a field: letters, digits and underscores
// in any order, so fields of imported data that no client could create stay reachable.
const FIELD_REFERENCE = /^[A-Za-z0-9_]{1,128}$/;
const RESERVED_KEYS = new Set(['objectid', 'createdat', 'updatedat', 'classname', 'acl']);

/**
 * The one class name rule, wherever a class is named: URLs, inner queries, Pointer and Relation
 * targets, batch paths, imports. A user class starts with a letter and has at most 60 letters,
 * digits and underscores; names starting with "_" are only the built-in classes, so internal
 * tables are never reachable; names starting with pg_ are refused (PostgreSQL searches
 * pg_catalog first, so a table named "pg_user" would be shadowed by the system view).
 */
export function isClassName(name: unknown): name is string {
  return typeof name === 'string' && !/^pg_/i.test(name) && (CLASS_NAME.test(name) || isBuiltInClass(name));
}

/**
 * Validates a class name from a URL or a query (103). User classes start with a letter; names
 * starting with "_" are only the built-in classes, so internal tables are never reachable.
 */
export function checkClassName(name: string): string {
  // PostgreSQL searches pg_catalog before the app's schema, so a table named "pg_user" would be
  // shadowed by the system view of that name: such classes could never work and are refused.
  if (/^pg_/i.test(name)) throw new ApiError('invalidClassName', `Invalid class name '${name.slice(0, 80)}'. Names starting with pg_ are reserved.`);
  const valid: boolean = isClassName(name);
  if (valid) return name;
  throw new ApiError('invalidClassName', `Invalid class name '${name.slice(0, 80)}'. Class names must start with a letter and contain only a-zA-Z0-9_.`);
}

/** True for a valid top-level field name (letters, digits, underscore; starts with a letter). */
export function isValidKeyName(name: string): boolean {
  return KEY_NAME.test(name);
}

/** True for a field a read may name (where, order, keys, include); never `__proto__`. */
export function isFieldReference(name: string): boolean {
  return FIELD_REFERENCE.test(name) && name !== PROTO_KEY;
}

/**
 * Why a nested key segment (after the first dot of `a.b.c`) is refused, or undefined: empty,
 * longer than MAX_KEY_LENGTH, starting with `$` (an operator), or `__proto__`. Stored keys
 * (writes) may not contain `$` anywhere. Text rules (NUL) are checked with the whole key.
 */
export function nestedSegmentProblem(segment: string, stored = false): string | undefined {
  if (segment === '' || segment.length > MAX_KEY_LENGTH) return `nested keys must be non-empty and at most ${MAX_KEY_LENGTH} characters`;
  if (stored ? segment.includes('$') : segment.startsWith('$')) return stored ? 'nested keys may not contain $' : 'nested keys may not start with $';
  if (segment === PROTO_KEY) return `${JSON.stringify(PROTO_KEY)} is not allowed`;
  return undefined;
}

/** True for names a client may not write (objectId, createdAt, updatedAt, className, ACL; any case). */
export function isReservedKey(name: string): boolean {
  return RESERVED_KEYS.has(name.toLowerCase());
}
