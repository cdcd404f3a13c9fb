/**
 * Parses the operators that reach other objects: inner queries (`$inQuery`, `$notInQuery`,
 * `$select`, `$dontSelect`) and `$relatedTo`. Inner queries follow the paging rules of outer
 * ones (limit default 100, 1..1000, else 100) because they are run with LIMIT.
 */
import { ApiError } from '../errors/api-error.ts';
import { isClassName } from '../model/names.ts';
import type { Condition, FieldPath, SubQuery } from './ast.ts';
import { parseLimit, parseSkip } from './limits.ts';
import { countSubquery, deeper, invalidQuery, type ParseContext } from './parse-context.ts';
import { parseFieldKey } from './parse-key.ts';
import { checkString, parsePointer } from './parse-value.ts';
import { isPlainObject } from '../model/plain-object.ts';

/**
 * Members SDKs put into an inner query (JS `_getParams()`, Java `assembleParameters`). keys,
 * include, returnACL and redirectClassNameForKey do not change which objects match, so they are
 * accepted and ignored; anything else is a mistake worth an error (a misspelt `where` would
 * otherwise silently match every object).
 */
const SUBQUERY_MEMBERS: ReadonlySet<string> = new Set([
  'className',
  'where',
  'limit',
  'skip',
  'order',
  'keys',
  'include',
  'returnACL',
  'redirectClassNameForKey',
]);

/**
 * Checks the class of an inner query (error 103) with the one class name rule (model/names.ts):
 * `_larder_meta`, `_larder_tokens` and the other internal tables are not classes, and naming one
 * is an error rather than a query that matches nothing.
 */
export function parseClassName(value: unknown): string {
  if (!isClassName(value)) {
    throw new ApiError('invalidClassName', `Invalid class name in inner query: ${JSON.stringify(value)?.slice(0, 100)}.`);
  }
  return value;
}

/** Parses `{className, where, limit?, skip?, order?}` of an inner query. */
export function parseSubQuery(raw: unknown, operator: string, ctx: ParseContext): SubQuery {
  if (!isPlainObject(raw)) invalidQuery(`${operator} needs an object {className, where}.`);
  countSubquery(ctx.state);
  for (const key of Object.keys(raw)) {
    if (!SUBQUERY_MEMBERS.has(key)) {
      invalidQuery(`Unknown member ${JSON.stringify(key.slice(0, 100))} in ${operator}; use className, where, limit, skip, order.`);
    }
  }
  const className = parseClassName(raw.className);
  const where = ctx.parseNested(raw.where ?? {}, deeper(ctx.scope, false));
  const order = raw.order;
  if (order !== undefined && typeof order !== 'string') invalidQuery(`order in ${operator} must be a string.`);
  const query: SubQuery = { className, where, limit: parseLimit(raw.limit), skip: parseSkip(raw.skip) };
  return order === undefined || order === '' ? query : { ...query, order: checkString(order) };
}

/** Parses `{query: {className, where, ...}, key}` of `$select` / `$dontSelect`. */
export function parseSelect(
  field: FieldPath,
  raw: unknown,
  negated: boolean,
  ctx: ParseContext,
): Condition {
  const operator = negated ? '$dontSelect' : '$select';
  if (!isPlainObject(raw)) invalidQuery(`${operator} needs an object {query, key}.`);
  for (const key of Object.keys(raw)) {
    if (key !== 'query' && key !== 'key') invalidQuery(`Unknown member ${JSON.stringify(key.slice(0, 100))} in ${operator}; use query and key.`);
  }
  if (typeof raw.key !== 'string') invalidQuery(`${operator} needs a string key.`);
  const key = parseFieldKey(raw.key);
  const query = parseSubQuery(raw.query, operator, ctx);
  return { kind: 'select', field, negated, query, key };
}

/** Parses `$relatedTo: {object: Pointer, key}` (a top-level operator, not under a field). */
export function parseRelatedTo(raw: unknown): Condition {
  if (!isPlainObject(raw)) invalidQuery('$relatedTo needs an object {object, key}.');
  for (const key of Object.keys(raw)) {
    if (key !== 'object' && key !== 'key') invalidQuery(`Unknown member ${JSON.stringify(key.slice(0, 100))} in $relatedTo; use object and key.`);
  }
  const owner = parsePointer(raw.object);
  parseClassName(owner.className);
  if (typeof raw.key !== 'string') invalidQuery('$relatedTo needs a string key.');
  const path = parseFieldKey(raw.key);
  if (path.length > 1) throw new ApiError('invalidKeyName', `Invalid relation key ${JSON.stringify(raw.key)}.`);
  return { kind: 'relatedTo', owner, key: path[0] };
}
