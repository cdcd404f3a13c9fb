/**
 * The one test for "a JSON object" (`{}`-style, what JSON.parse makes): false for arrays, null
 * and class instances. Every parser of request bodies, settings and stored JSON uses it.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
