import { createHash, timingSafeEqual } from 'node:crypto';
// Digests of the app's own keys are asked for on every request: keep a few.
const knownDigests = new Map();
const MAX_KNOWN = 16;
function digest(value) {
    return createHash('sha256').update(value).digest();
}
function expectedDigest(expected) {
    const hit = knownDigests.get(expected);
    if (hit)
        return hit;
    const d = digest(expected);
    if (knownDigests.size < MAX_KNOWN)
        knownDigests.set(expected, d);
    return d;
}
/**
 * Compares two secrets in constant time. Both sides are hashed first so that neither the
 * content nor the length of the expected value leaks through timing.
 */
export function safeEqual(given, expected) {
    return timingSafeEqual(digest(given), expectedDigest(expected));
}
//# sourceMappingURL=constant-time.js.map