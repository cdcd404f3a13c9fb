/**
 * The one test for "a JSON object" (`{}`-style, what JSON.parse makes): false for arrays, null
 * and class instances. Every parser of request bodies, settings and stored JSON uses it.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Keys that would reach Object.prototype if some later code assigned them naively. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * The one key that an assignment (`out[key] = v`) turns into a prototype change. Field and
 * nested key names such as `constructor` or `toString` are ordinary data (issue 12): every
 * lookup keyed by them is an own-property lookup, so only `__proto__` is refused.
 */
export const PROTO_KEY = '__proto__';
