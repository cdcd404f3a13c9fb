/**
 * GET /1.1/users/strictlyQuery: the user search of the newer SDKs (Java/Android
 * `LCUser.strictlyFind`, ObjC `strictlyFindWithQuery`, C# `LCUser.StrictlyFind`). LeanCloud's
 * semantics are not documented; what the SDKs and their own tests against the service show
 * (leancloud-behaviour §2.4), and what Larder therefore does:
 * - any logged-in user may search, also an anonymous one and also while `_User` find is off
 *   (that is its purpose); without a session (and without the master key) 206;
 * - "more restrictive on query conditions": no `skip` (the ObjC SDK says so, and the Java SDK's
 *   test expects an error for one), no protected fields, no inner queries (`$inQuery`,
 *   `$select`, `$relatedTo` and their negations); `include` and `count` are not offered either;
 * - a condition is required: an empty `where` would list every user, the very thing that
 *   closing `_User` find forbids;
 * - protected fields are the hidden ones (password, sessionToken, authData, ...) plus `email`
 *   and `mobilePhoneNumber`: they cannot be queried or sorted on (102; a `$regex` on an email
 *   would spell it out one character at a time) and are never returned;
 * - each user row's ACL applies as to any find: rows the caller cannot read are absent;
 * - `where`, `order`, `limit` (default 100, at most 1000) and `keys` work as in a class query.
 * The master key lifts the field and condition restrictions (never the skip/include/count ones,
 * which are about the endpoint's shape) and sees email and phone.
 */
import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { encodeRow, type WireObject } from '../objects/encode.ts';
import { expandFiles } from '../objects/expand-files.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { projectKeys, type KeySelection } from '../objects/project-keys.ts';
import { accessOf, droppedFrom, planQuery } from '../plan/index.ts';
import type { Condition } from '../query/ast.ts';
import { sql } from '../sql/fragment.ts';

/**
 * Fields besides the hidden ones that a strict query neither matches, sorts on nor returns, even
 * to the user itself and even when the app makes them visible to clients elsewhere.
 */
export const STRICT_PRIVATE_FIELDS: readonly string[] = ['email', 'mobilePhoneNumber'];

/** The parsed parameters of a strict user query. */
export interface StrictQuery {
  readonly where: unknown;
  readonly order?: string;
  readonly limit: number;
  readonly keys?: KeySelection;
}

const refuse = (why: string) => new ApiError('invalidQuery', `strictlyQuery: ${why}`);

/** Throws 102 for inner queries ($inQuery, $select, $relatedTo and negations); walks $and/$or. */
export function checkStrictCondition(cond: Condition): void {
  switch (cond.kind) {
    case 'and':
    case 'or':
      for (const c of cond.conditions) checkStrictCondition(c);
      return;
    case 'inQuery':
    case 'select':
    case 'relatedTo':
      throw refuse('inner queries ($inQuery, $select, $relatedTo and their negations) are not supported.');
    default:
      return;
  }
}

function isEmptyWhere(where: unknown): boolean {
  return where === undefined || where === null || (typeof where === 'object' && Object.keys(where).length === 0);
}

/** Runs a strict user query; see the file comment. */
export async function strictlyQueryUsers(ctx: RequestContext, q: StrictQuery): Promise<{ results: WireObject[] }> {
  const access = await accessOf(ctx);
  if (!access.master && !access.userId) {
    throw new ApiError('sessionRequired', 'strictlyQuery needs the session of a logged-in user (X-LC-Session) or the master key.');
  }
  if (!access.master && isEmptyWhere(q.where)) throw refuse("a 'where' condition is required.");
  const schema = await ctx.app.classes.find('_User');
  if (!schema) return { results: [] };
  // The planner refuses hidden, invisible and these protected fields for non-master callers.
  const plan = await planQuery(access, schema, { where: q.where, order: q.order, protect: STRICT_PRIVATE_FIELDS, restrict: checkStrictCondition });
  const rows = await ctx.app.db.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${plan.table} WHERE ${plan.filter} ORDER BY ${plan.order} LIMIT ${q.limit}`);
  const results = rows.map((r) => encodeRow(r, { className: '_User', withAcl: false, master: plan.view.master, drop: droppedFrom(plan.view, r.objectId) }));
  await expandFiles(ctx.app.db, results);
  return { results: q.keys ? results.map((o) => projectKeys(o, q.keys)) : results };
}
