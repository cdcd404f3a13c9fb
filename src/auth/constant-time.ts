import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Secrets up to this many UTF-8 bytes are compared in a zero-padded buffer of this size; longer
 * ones through SHA-256 digests. App ids, keys and signatures are 20-40 bytes.
 */
const PADDED_BYTES = 256;

/** An expected value, ready for either comparison. */
interface Expected {
  /** The value zero-padded to PADDED_BYTES, and its length in bytes; absent when longer. */
  padded?: Buffer;
  bytes: number;
  digest: Buffer;
}

// The app's own keys are asked for on every request: keep a few ready.
const known = new Map<string, Expected>();
const MAX_KNOWN = 16;

/** Where the given value is copied for the padded comparison (compared synchronously, never shared). */
const scratch = Buffer.alloc(PADDED_BYTES);

// One-shot hashing: no Hash object per call (the streaming createHash() path cost about twice as
// much CPU, issue 16).
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

function expectedOf(expected: string): Expected {
  const hit = known.get(expected);
  if (hit) return hit;
  const bytes = Buffer.byteLength(expected, 'utf8');
  const e: Expected = { bytes, digest: digest(expected) };
  if (bytes <= PADDED_BYTES) {
    e.padded = Buffer.alloc(PADDED_BYTES);
    e.padded.write(expected, 'utf8');
  }
  if (known.size < MAX_KNOWN) known.set(expected, e);
  return e;
}

/**
 * Compares two secrets in constant time: neither the content nor the length of the expected
 * value leaks through timing. The given value is copied into a zero-padded buffer of fixed size
 * and compared with the expected one, padded alike, by crypto.timingSafeEqual (the same work
 * whatever either holds), and the byte lengths are compared apart (padding alone would make
 * "key" and "key\0" equal). A given value too long for the buffer, or an expected one, is
 * compared by SHA-256 digests instead; which way is taken depends only on the given value's
 * length and on whether the expected one is longer than PADDED_BYTES, never on content. The
 * padded way costs a fraction of the two digests (docs/benchmarks.md, "Cloud code").
 */
export function safeEqual(given: string, expected: string): boolean {
  const e = expectedOf(expected);
  // A UTF-8 byte is at least one UTF-16 unit: a string longer than the buffer in units is too long in bytes.
  const bytes = given.length > PADDED_BYTES ? PADDED_BYTES + 1 : Buffer.byteLength(given, 'utf8');
  if (e.padded === undefined || bytes > PADDED_BYTES) return timingSafeEqual(digest(given), e.digest);
  scratch.fill(0);
  scratch.write(given, 'utf8');
  const same = timingSafeEqual(scratch, e.padded);
  // Both computed before they are combined: no early exit on either.
  const sameLength = bytes === e.bytes;
  return same && sameLength;
}
