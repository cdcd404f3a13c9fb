import type { RequestContext } from '../app-context.ts';
import { readersOf } from '../app-context.ts';
import { checkClassPermission, checkInnerQueries, classPermits } from '../auth/class-permissions.ts';
import { checkHiddenFields, checkHiddenOrder } from '../auth/hidden-field-guard.ts';
import type { Condition } from '../query/ast.ts';
import { parseWhere } from '../query/parse-where.ts';
import { aclClause, compileWhere } from '../query/sql/compile-where.ts';
import { compileOrder } from '../query/sql/compile-order.ts';
import { ident, sql, type Sql } from '../sql/fragment.ts';
import type { ClassSchema } from '../schema/types.ts';
import { encodeRow, type WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';
import { resolveIncludes } from './include.ts';
import { OBJECT_COLUMNS, type ObjectRow } from './object-row.ts';
import { projectKeys, type KeySelection } from './project-keys.ts';

/** A parsed class query. */
export interface FindQuery {
  where: unknown;
  order?: string;
  /** 0 only with count (count-only query). */
  limit: number;
  skip: number;
  keys?: KeySelection;
  include: string[][];
  count: boolean;
  returnACL: boolean;
}

/** The response body of a class query. */
export interface FindResult {
  results: WireObject[];
  count?: number;
  className?: string;
}

/** Compiles the WHERE of a query (condition AND ACL) and the distance order of $nearSphere. */
export function compileFilter(schema: ClassSchema, where: unknown, ctx: RequestContext, readers: readonly string[] | null): { filter: Sql; nearOrder?: Sql; cond: Condition } {
  const cond = parseWhere(where ?? {});
  // Hidden fields (_User tokens, hashes) cannot be queried except with the master key.
  if (readers !== null) checkHiddenFields(schema.name, cond);
  const compiled = compileWhere(cond, { schema, schemaOf: (n) => ctx.app.classes.cached(n), readers });
  return { filter: sql`(${compiled.condition}) AND ${aclClause(readers)}`, nearOrder: compiled.nearOrder, cond };
}

/**
 * Runs a class query: filter + ACL in SQL, order, limit/skip, then include, file expansion and
 * key projection on the page. An unknown class is an empty result, as in the original service.
 */
export async function findObjects(ctx: RequestContext, className: string, q: FindQuery): Promise<FindResult> {
  const { db, classes } = ctx.app;
  const schema = await classes.find(className);
  if (!schema) return q.count ? { results: [], count: 0 } : { results: [] };
  await checkClassPermission(ctx, className, 'find');
  if (!ctx.master) checkHiddenOrder(className, q.order);
  const readers = await readersOf(ctx);
  const { filter, nearOrder, cond } = compileFilter(schema, q.where, ctx, readers);
  await checkInnerQueries(ctx, cond);
  const table = ident(className);
  const out: FindResult = { results: [] };
  if (q.count) {
    const [{ n }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${table} WHERE ${filter}`);
    out.count = n;
  }
  if (q.limit > 0) {
    const order = q.order ? compileOrder(q.order, schema) : nearOrder ? sql`${nearOrder}, "objectId"` : sql`"createdAt", "objectId"`;
    const rows = await db.query<ObjectRow>(
      sql`SELECT ${OBJECT_COLUMNS} FROM ${table} WHERE ${filter} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.skip}`,
    );
    const withAcl = q.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries);
    const objects = rows.map((r) => encodeRow(r, { className, withAcl }));
    if (q.include.length) await resolveIncludes({ db, classes, readers, permits: (c) => classPermits(ctx, c, 'get') }, objects, q.include);
    await expandFiles(db, objects);
    out.results = q.keys ? objects.map((o) => projectKeys(o, q.keys)) : objects;
  }
  return out;
}
