import { ApiError } from '../errors/api-error.ts';
import { isBuiltInClass } from './class-schema.ts';

const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]{0,59}$/;
const KEY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;
const RESERVED_KEYS = new Set(['objectid', 'createdat', 'updatedat', 'classname', 'acl']);

/**
 * Validates a class name from a URL or a query (103). User classes start with a letter; names
 * starting with "_" are only the built-in classes, so internal tables are never reachable.
 */
export function checkClassName(name: string): string {
  // PostgreSQL searches pg_catalog before the app's schema, so a table named "pg_user" would be
  // shadowed by the system view of that name: such classes could never work and are refused.
  if (/^pg_/i.test(name)) throw new ApiError('invalidClassName', `Invalid class name '${name.slice(0, 80)}'. Names starting with pg_ are reserved.`);
  if (CLASS_NAME.test(name) || isBuiltInClass(name)) return name;
  throw new ApiError('invalidClassName', `Invalid class name '${name.slice(0, 80)}'. Class names must start with a letter and contain only a-zA-Z0-9_.`);
}

/** True for a valid top-level field name (letters, digits, underscore; starts with a letter). */
export function isValidKeyName(name: string): boolean {
  return KEY_NAME.test(name);
}

/** True for names a client may not write (objectId, createdAt, updatedAt, className, ACL; any case). */
export function isReservedKey(name: string): boolean {
  return RESERVED_KEYS.has(name.toLowerCase());
}
