/**
 * Whether a before extension's replacement body is the body a write was checked from: the same
 * keys in the same order, each value equal as JSON. A no-op LeanEngine beforeSave answers exactly
 * the object it was sent, and such a replacement needs no second check (run-write.ts).
 */

/** Equal as JSON, key order included (both sides came from JSON.parse). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True when `replacement` and `body` are plain objects with the same keys, in order, and equal values. */
export function sameBody(replacement: Record<string, unknown>, body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const original = body as Record<string, unknown>;
  const keys = Object.keys(replacement);
  const originalKeys = Object.keys(original);
  if (keys.length !== originalKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k !== originalKeys[i] || !sameJson(replacement[k], original[k])) return false;
  }
  return true;
}
