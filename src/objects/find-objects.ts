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
import { encodeOwnedRow, type WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';
import { resolveIncludes } from './include.ts';
import { OBJECT_COLUMNS, TEXT_COLUMNS, type ObjectRow } from './object-row.ts';
import { mayHoldFile, parsedRow, RawJson, rowJson, textEncodable, type TextRow } from './raw-json.ts';
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

/** What a class query needs once its checks have passed: the statements' parts. */
interface FindPlan {
  table: Sql;
  filter: Sql;
  order: Sql;
  readers: readonly string[] | null;
  withAcl: boolean;
}

/** Runs the checks of a class query and compiles it; undefined for an unknown class. */
async function planFind(ctx: RequestContext, className: string, q: FindQuery): Promise<FindPlan | undefined> {
  const schema = await ctx.app.classes.find(className);
  if (!schema) return undefined;
  await checkClassPermission(ctx, className, 'find');
  if (!ctx.master) checkHiddenOrder(className, q.order);
  const readers = await readersOf(ctx);
  const { filter, nearOrder, cond } = compileFilter(schema, q.where, ctx, readers);
  await checkInnerQueries(ctx, cond);
  const order = q.order ? compileOrder(q.order, schema) : nearOrder ? sql`${nearOrder}, "objectId"` : sql`"createdAt", "objectId"`;
  const withAcl = q.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries);
  return { table: ident(className), filter, order, readers, withAcl };
}

async function countOf(ctx: RequestContext, plan: FindPlan): Promise<number> {
  const [{ n }] = await ctx.app.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${plan.table} WHERE ${plan.filter}`);
  return n;
}

/** Encodes a page of rows, then include, file expansion and key projection. */
async function finishPage(ctx: RequestContext, className: string, plan: FindPlan, q: FindQuery, rows: readonly ObjectRow[]): Promise<WireObject[]> {
  const { db, classes } = ctx.app;
  const schema = classes.cached(className);
  const objects = rows.map((r) => encodeOwnedRow(r, { className, withAcl: plan.withAcl, master: ctx.master, schema }));
  if (q.include.length) await resolveIncludes({ db, classes, readers: plan.readers, permits: (c) => classPermits(ctx, c, 'get') }, objects, q.include);
  await expandFiles(db, objects);
  return q.keys ? objects.map((o) => projectKeys(o, q.keys)) : objects;
}

async function runFind(ctx: RequestContext, className: string, plan: FindPlan, q: FindQuery): Promise<FindResult> {
  const out: FindResult = { results: [] };
  if (q.count) out.count = await countOf(ctx, plan);
  if (q.limit > 0) {
    const rows = await ctx.app.db.query<ObjectRow>(
      sql`SELECT ${OBJECT_COLUMNS} FROM ${plan.table} WHERE ${plan.filter} ORDER BY ${plan.order} LIMIT ${q.limit} OFFSET ${q.skip}`,
    );
    out.results = await finishPage(ctx, className, plan, q, rows);
  }
  return out;
}

/**
 * Runs a class query: filter + ACL in SQL, order, limit/skip, then include, file expansion and
 * key projection on the page. An unknown class is an empty result, as in the original service.
 */
export async function findObjects(ctx: RequestContext, className: string, q: FindQuery): Promise<FindResult> {
  const plan = await planFind(ctx, className, q);
  if (!plan) return q.count ? { results: [], count: 0 } : { results: [] };
  return runFind(ctx, className, plan, q);
}

/**
 * findObjects for an HTTP answer: the same checks and statement, but when nothing has to be
 * done to the objects (no include, keys or ACL, no hidden fields, no file on the page) the
 * answer is spliced from the documents' jsonb text instead of parsing and re-serialising each
 * one. Otherwise the answer is findObjects'.
 */
export async function findObjectsJson(ctx: RequestContext, className: string, q: FindQuery): Promise<FindResult | RawJson> {
  if (q.include.length || q.keys || q.limit <= 0 || !textEncodable(className, await ctx.app.classes.find(className))) return findObjects(ctx, className, q);
  const plan = await planFind(ctx, className, q);
  if (!plan) return q.count ? { results: [], count: 0 } : { results: [] };
  if (plan.withAcl) return runFind(ctx, className, plan, q);
  const count = q.count ? await countOf(ctx, plan) : undefined;
  const rows = await ctx.app.db.query<TextRow>(
    sql`SELECT ${TEXT_COLUMNS} FROM ${plan.table} WHERE ${plan.filter} ORDER BY ${plan.order} LIMIT ${q.limit} OFFSET ${q.skip}`,
  );
  if (rows.some(mayHoldFile)) {
    // File references are expanded on the parsed objects, as findObjects does.
    const results = await finishPage(ctx, className, plan, q, rows.map(parsedRow));
    return count === undefined ? { results } : { results, count };
  }
  const results = `{"results":[${rows.map(rowJson).join(',')}]`;
  return new RawJson(count === undefined ? `${results}}` : `${results},"count":${count}}`);
}
