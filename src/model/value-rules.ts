/**
 * Rules every stored or compared value follows, written once for writes (objects/decode-value.ts,
 * 107) and queries (query/parse-value.ts, 102): how deep a JSON value may nest, and which text
 * PostgreSQL cannot hold. Each caller answers with its own error code (a bad body is 107, a bad
 * query 102), the rule is the same.
 */

/** Deepest nesting of arrays/objects inside one value (stored field values and query values). */
export const MAX_VALUE_DEPTH = 32;

// jsonb and text reject NUL; unpaired UTF-16 surrogates cannot be encoded as UTF-8.
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for text PostgreSQL cannot store or compare: a NUL character or an unpaired surrogate. */
export function isUnstorableText(text: string): boolean {
  return UNSTORABLE_TEXT.test(text);
}
