/**
 * Parses a LeanCloud `where` (already JSON-decoded) into the typed AST. Syntax only: keys are
 * validated, values typed, operators checked and the hostile-input limits enforced; field types
 * are the compiler's business. A where may be an object or an array (an implicit `$and`).
 *
 * Compound sub-conditions (`$or`/`$and` members) are where objects, exactly as SDKs send them
 * (`q._getParams().where`). A member key such as `limit` or `order` is therefore a field name
 * there, as it is at the top level: the spec's "limit, skip, order and include are not allowed in
 * sub-queries of a compound query" cannot be expressed on the wire and needs no check, and
 * rejecting those names would make fields called `order` unqueryable inside `$or`.
 */
import { type Condition, MATCH_ALL } from './ast.ts';
import { countCondition, deeper, invalidQuery, type ParseContext, type ParseScope, type ParseState } from './parse-context.ts';
import { parseFieldKey } from './parse-key.ts';
import { parseFieldCondition } from './parse-operators.ts';
import { parseRelatedTo } from './parse-subquery.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** Operators allowed as keys of a where object itself (not under a field). */
export const TOP_LEVEL_OPERATORS: readonly string[] = ['$or', '$and', '$relatedTo'];

/** Parses a where; undefined or null match everything. Errors are ApiErrors (102, 105, 106, 302). */
export function parseWhere(where: unknown): Condition {
  if (where === undefined || where === null) return MATCH_ALL;
  const state: ParseState = { conditions: 0, subqueries: 0 };
  return parseAt(where, state, { depth: 0, inCompound: false });
}

function contextFor(state: ParseState, scope: ParseScope): ParseContext {
  return { state, scope, parseNested: (where, inner) => parseAt(where, state, inner) };
}

/** One where level: an object, or an array whose members are AND-ed. */
function parseAt(where: unknown, state: ParseState, scope: ParseScope): Condition {
  if (Array.isArray(where)) {
    const inner = deeper(scope, scope.inCompound);
    return combine('and', where.map((member) => parseObject(member, state, inner)));
  }
  return parseObject(where, state, scope);
}

function parseObject(where: unknown, state: ParseState, scope: ParseScope): Condition {
  if (!isPlainObject(where)) invalidQuery('A where condition must be a JSON object (or an array of objects).');
  const ctx = contextFor(state, scope);
  const conditions: Condition[] = [];
  for (const key of Object.keys(where)) {
    const value = where[key];
    if (key === '$or' || key === '$and') {
      conditions.push(parseCompound(key, value, state, scope));
    } else if (key === '$relatedTo') {
      countCondition(state);
      conditions.push(parseRelatedTo(value));
    } else if (key.startsWith('$')) {
      invalidQuery(`Unknown operator ${JSON.stringify(key.slice(0, 100))}; at this level only ${TOP_LEVEL_OPERATORS.join(', ')} are allowed.`);
    } else {
      conditions.push(...parseFieldCondition(parseFieldKey(key), value, ctx));
    }
  }
  return combine('and', conditions);
}

function parseCompound(key: '$or' | '$and', value: unknown, state: ParseState, scope: ParseScope): Condition {
  if (!Array.isArray(value) || value.length === 0) invalidQuery(`${key} needs a non-empty array of conditions.`);
  const inner = deeper(scope, true);
  const members = value.map((member) => {
    if (!isPlainObject(member)) invalidQuery(`Each member of ${key} must be a JSON object.`);
    return parseObject(member, state, inner);
  });
  return key === '$or' ? { kind: 'or', conditions: members } : combine('and', members);
}

/** One condition stays itself; several become an `and` (flattening nested ands). */
function combine(kind: 'and', conditions: readonly Condition[]): Condition {
  if (conditions.length === 1) return conditions[0];
  const flat: Condition[] = [];
  for (const c of conditions) {
    if (c.kind === 'and') flat.push(...c.conditions);
    else flat.push(c);
  }
  return { kind, conditions: flat };
}
