/**
 * Named limits of the query language. Paging limits follow the LeanCloud spec; the others exist
 * so that hostile input gets a clear error instead of a huge statement, a hang or a stack
 * overflow. Every limit has its own message naming the constant's value.
 */
import { ApiError } from '../errors/api-error.ts';

/** `limit` when none is given, and what an out-of-range `limit` becomes (spec: "gives 100"). */
export const DEFAULT_LIMIT = 100;
/** Largest `limit` for queries and inner queries. */
export const MAX_LIMIT = 1000;
/**
 * Nesting depth of `$or`/`$and` groups and inner queries. SDKs build at most a few levels; ten is
 * generous and keeps the recursive parser and the generated SQL small.
 */
export const MAX_WHERE_DEPTH = 10;
/** Leaf conditions (one per operator) in one where, inner queries included. */
export const MAX_CONDITIONS = 500;
/**
 * Elements of one `$in`, `$nin` or `$all` list. The list is one bound array parameter, so the
 * cost is the request size; 10,000 covers "objects whose id is in this page of ids" uses.
 */
export const MAX_LIST_VALUES = 10_000;
/** Characters of one `$regex` pattern (PostgreSQL compiles each pattern per statement). */
export const MAX_REGEX_LENGTH = 1000;
/** Inner queries (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`) in one where, nested ones included. */
export const MAX_SUBQUERIES = 10;
/** Keys in one `order` parameter. */
export const MAX_ORDER_KEYS = 16;

/** Throws the "too complex" error for a named limit. */
export function tooComplex(what: string, limit: number): never {
  throw new ApiError('queryTooComplex', `The query is too complex: at most ${limit} ${what} allowed.`);
}

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && raw.trim() !== '' && /^[+-]?\d+(\.\d+)?$/.test(raw.trim())) return Number(raw);
  return undefined;
}

/**
 * Resolves `limit`. Absent, non-integer or outside 1..1000 gives 100 (the REST spec's rule;
 * another LeanCloud doc says values above 1000 give 1000 but the spec we follow says 100).
 * `limit=0` is kept only together with `count=1` (results empty, count returned); without count
 * it is out of range like any other and gives 100.
 */
export function parseLimit(raw: unknown, options: { count: boolean } = { count: false }): number {
  const n = toNumber(raw);
  if (n === undefined || !Number.isInteger(n)) return DEFAULT_LIMIT;
  if (n === 0 && options.count) return 0;
  if (n < 1 || n > MAX_LIMIT) return DEFAULT_LIMIT;
  return n;
}

/**
 * Resolves `skip`. Absent gives 0. Anything but a non-negative safe integer is error 102:
 * unlike `limit` the spec gives no coercion rule, and silently paging from 0 on a typo would
 * return the wrong page without any sign of it. There is no maximum (LeanCloud documents none;
 * large skips are only slow, and statement_timeout bounds them).
 */
export function parseSkip(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return 0;
  const n = toNumber(raw);
  if (n === undefined || !Number.isSafeInteger(n) || n < 0) {
    throw new ApiError('invalidQuery', `skip must be a non-negative integer, got ${JSON.stringify(raw)}.`);
  }
  return n;
}
