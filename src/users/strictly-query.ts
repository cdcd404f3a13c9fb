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
import { readersOf } from '../app-context.ts';
import { checkHiddenOrder } from '../auth/hidden-field-guard.ts';
import { ApiError } from '../errors/api-error.ts';
import { encodeRow, type WireObject } from '../objects/encode.ts';
import { expandFiles } from '../objects/expand-files.ts';
import { compileFilter } from '../objects/find-objects.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { projectKeys, type KeySelection } from '../objects/project-keys.ts';
import type { Condition } from '../query/ast.ts';
import { compileOrder } from '../query/sql/compile-order.ts';
import { sql } from '../sql/fragment.ts';
import { USER_TABLE } from './user-store.ts';

/** Fields besides the hidden ones that a strict query neither matches, sorts on nor returns. */
export const STRICT_PRIVATE_FIELDS: readonly string[] = ['email', 'mobilePhoneNumber'];

/** The parsed parameters of a strict user query. */
export interface StrictQuery {
  readonly where: unknown;
  readonly order?: string;
  readonly limit: number;
  readonly keys?: KeySelection;
}

const refuse = (why: string) => new ApiError('invalidQuery', `strictlyQuery: ${why}`);

/** Throws 102 for inner queries and for conditions on the private fields; walks $and/$or. */
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
      if (STRICT_PRIVATE_FIELDS.includes(cond.field[0])) throw refuse(`cannot query on '${cond.field[0]}'.`);
  }
}

function checkStrictOrder(order: string | undefined): void {
  checkHiddenOrder('_User', order);
  for (const part of (order ?? '').split(',')) {
    const field = part.trim().replace(/^-/, '').split('.')[0];
    if (STRICT_PRIVATE_FIELDS.includes(field)) throw refuse(`cannot sort on '${field}'.`);
  }
}

function isEmptyWhere(where: unknown): boolean {
  return where === undefined || where === null || (typeof where === 'object' && Object.keys(where).length === 0);
}

/** Runs a strict user query; see the file comment. */
export async function strictlyQueryUsers(ctx: RequestContext, q: StrictQuery): Promise<{ results: WireObject[] }> {
  if (!ctx.master && !(await ctx.principal()).userId) {
    throw new ApiError('sessionRequired', 'strictlyQuery needs the session of a logged-in user (X-LC-Session) or the master key.');
  }
  if (!ctx.master && isEmptyWhere(q.where)) throw refuse("a 'where' condition is required.");
  const schema = await ctx.app.classes.find('_User');
  if (!schema) return { results: [] };
  const readers = await readersOf(ctx);
  // compileFilter refuses the hidden fields for non-master callers (hidden-field-guard.ts).
  const { filter, cond } = compileFilter(schema, q.where, ctx, readers);
  if (!ctx.master) {
    checkStrictCondition(cond);
    checkStrictOrder(q.order);
  }
  const order = q.order ? compileOrder(q.order, schema) : sql`"createdAt", "objectId"`;
  const rows = await ctx.app.db.query<ObjectRow>(
    sql`SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE ${filter} ORDER BY ${order} LIMIT ${q.limit}`,
  );
  const results = rows.map((r) => {
    const o = encodeRow(r, { className: '_User', withAcl: false });
    if (!ctx.master) for (const f of STRICT_PRIVATE_FIELDS) delete o[f];
    return o;
  });
  await expandFiles(ctx.app.db, results);
  return { results: q.keys ? results.map((o) => projectKeys(o, q.keys)) : results };
}
