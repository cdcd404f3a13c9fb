import { hash, timingSafeEqual } from 'node:crypto';

// Digests of the app's own keys are asked for on every request: keep a few.
const knownDigests = new Map<string, Buffer>();
const MAX_KNOWN = 16;

// One-shot hashing: no Hash object per call. Two digests run on every request (app id, key),
// and the streaming createHash() path cost about twice as much CPU (issue 16).
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

function expectedDigest(expected: string): Buffer {
  const hit = knownDigests.get(expected);
  if (hit) return hit;
  const d = digest(expected);
  if (knownDigests.size < MAX_KNOWN) knownDigests.set(expected, d);
  return d;
}

/**
 * Compares two secrets in constant time. Both sides are hashed first so that neither the
 * content nor the length of the expected value leaks through timing.
 */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), expectedDigest(expected));
}
