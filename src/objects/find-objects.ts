import type { RequestContext } from '../app-context.ts';
import { accessOf, droppedFrom, fieldView, narrowRange, planQuery, reusableShape, type Access, type QueryPlan } from '../plan/index.ts';
import { sql } from '../sql/fragment.ts';
import { heavy } from '../storage/heavy-lane.ts';
import { accessPaths } from '../storage/table-access-paths.ts';
import { readPage, type PageRow } from './page-budget.ts';
import { encodeOwnedRow, type WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';
import { resolveIncludes } from './include.ts';
import { headsWithPage, prefetchedHeads, readPageWithIncludes, type HeadWithPage, type PageWithIncludes, type PrefetchedHead } from './page-includes.ts';
import { includedCache } from './included-cache.ts';
import { spliceIncludes } from './splice-includes.ts';
import type { ObjectRow } from './object-row.ts';
import { mayHoldFile, parsedRow, RawJson, rowJson } from './raw-json.ts';
import { projectKeys, type KeySelection } from './project-keys.ts';
import { hasRelationFields } from './relation-fields.ts';
import type { ClassSchema } from '../model/class-schema.ts';

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

/** What a class query needs once its checks have passed: the plan and who reads. */
interface FindPlan {
  query: QueryPlan;
  access: Access;
  schema: ClassSchema;
  withAcl: boolean;
}

/** How the page statement runs: prepared or not, and whether it reads a narrow range of its index. */
interface Reuse {
  reuse: boolean;
  narrow: boolean;
}

const NOT_REUSED: Reuse = { reuse: false, narrow: false };

/**
 * Whether the page statement may run prepared (plan/reusable-shape.ts), and whether it then reads
 * a narrow range (plan/narrow-range.ts). The table's indexes are read (cached) only for the
 * readers that can qualify: the master key and anonymous callers.
 */
async function reusable(ctx: RequestContext, className: string, plan: FindPlan, order: string | undefined): Promise<Reuse> {
  const { readers } = plan.access;
  if (!plan.query.shape || (readers !== null && (readers.length !== 1 || readers[0] !== '*'))) return NOT_REUSED;
  const paths = await accessPaths(ctx.app.db, className);
  if (!reusableShape(plan.query.shape, readers, paths)) return NOT_REUSED;
  return { reuse: true, narrow: narrowRange(plan.query.cond, order, plan.schema, paths) };
}

/** Runs the checks of a class query and plans it; undefined for an unknown class. */
async function planFind(ctx: RequestContext, className: string, q: FindQuery): Promise<FindPlan | undefined> {
  const schema = await ctx.app.classes.find(className);
  if (!schema) return undefined;
  const access = await accessOf(ctx);
  await access.require(className, 'find');
  // The table's indexes (cached) decide which Number order keys may sort as doubles
  // (plan/double-sort-keys.ts); on PostgreSQL only: the embedded engine's float8in (WebAssembly)
  // costs about four times its numeric_in (docs/benchmarks.md, "The sort key as a double").
  const indexes = q.order && q.limit > 0 && ctx.app.db.engine === 'postgres' ? (await accessPaths(ctx.app.db, className)).indexes : undefined;
  const query = await planQuery(access, schema, indexes ? { ...q, indexes } : q);
  const withAcl = q.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries);
  return { query, access, schema, withAcl };
}

async function countOf(ctx: RequestContext, plan: FindPlan): Promise<number> {
  const [{ n }] = await ctx.app.db.query<{ n: number }>(heavy(sql`SELECT count(*)::int AS n FROM ${plan.query.table} WHERE ${plan.query.filter}`));
  return n;
}

/**
 * Encodes a page of rows, then include, file expansion and key projection. `prefetched`: the
 * included objects read with the page (page-includes.ts), as taken from its documents before
 * encoding changes them.
 */
async function finishPage(ctx: RequestContext, className: string, plan: FindPlan, q: FindQuery, rows: readonly ObjectRow[], prefetched?: ReadonlyMap<string, PrefetchedHead>): Promise<WireObject[]> {
  const { db, classes } = ctx.app;
  const view = plan.query.view;
  const schema = classes.cached(className);
  const objects = rows.map((r) => encodeOwnedRow(r, { className, withAcl: plan.withAcl, master: view.master, drop: droppedFrom(view, r.objectId), schema }));
  if (q.include.length) await resolveIncludes({ db, classes, access: plan.access }, objects, q.include, prefetched);
  await expandFiles(db, objects);
  return q.keys ? objects.map((o) => projectKeys(o, q.keys)) : objects;
}

/** finishPage for a page read with its include heads' objects (page-includes.ts). */
function finishJoint(ctx: RequestContext, className: string, plan: FindPlan, q: FindQuery, read: PageWithIncludes<PageRow>): Promise<WireObject[]> {
  const rows = read.rows.map(parsedRow);
  return finishPage(ctx, className, plan, q, rows, prefetchedHeads(rows, read.heads));
}

async function runFind(ctx: RequestContext, className: string, plan: FindPlan, q: FindQuery): Promise<FindResult> {
  const out: FindResult = { results: [] };
  if (q.count) out.count = await countOf(ctx, plan);
  if (q.limit > 0) {
    const { table, filter, order } = plan.query;
    const { reuse, narrow } = await reusable(ctx, className, plan, q.order);
    const page = { table, filter, order, limit: q.limit, skip: q.skip, acl: plan.withAcl, reuse, narrow };
    const { db, classes } = ctx.app;
    // The page and the objects its pointers name in one statement (page-includes.ts), only when
    // that statement runs prepared: unprepared, its parsing and planning cost PostgreSQL more than
    // the separate include statement, which is always prepared (docs/benchmarks.md, issue 16).
    const heads = q.include.length && reuse ? await headsWithPage({ db, classes, access: plan.access }, plan.schema, q.include) : [];
    if (heads.length) {
      out.results = await finishJoint(ctx, className, plan, q, await readPageWithIncludes(db, includedCache(ctx.app), plan.access, page, heads));
    } else {
      const rows = await readPage<PageRow>(db, page);
      out.results = await finishPage(ctx, className, plan, q, rows.map(parsedRow));
    }
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
 * done to the objects (no include, keys or ACL, no hidden or invisible fields, no file on the
 * page) the answer is spliced from the documents' jsonb text instead of parsing and
 * re-serialising each one. Otherwise the answer is findObjects'.
 */
export async function findObjectsJson(ctx: RequestContext, className: string, q: FindQuery): Promise<FindResult | RawJson> {
  if (q.keys || q.limit <= 0 || q.include.some((p) => p.length > 1)) return findObjects(ctx, className, q);
  const plan = await planFind(ctx, className, q);
  if (!plan) return q.count ? { results: [], count: 0 } : { results: [] };
  // Rows that need fields dropped or Relation markers added go through the parsing path.
  if (plan.withAcl || !plan.query.view.textEncodable || hasRelationFields(plan.schema)) return runFind(ctx, className, plan, q);
  const { reuse, narrow } = await reusable(ctx, className, plan, q.order);
  const heads = q.include.length ? await splicedHeads(ctx, plan, q, reuse) : [];
  if (!heads) return runFind(ctx, className, plan, q);
  const count = q.count ? await countOf(ctx, plan) : undefined;
  const { table, filter, order } = plan.query;
  const page = { table, filter, order, limit: q.limit, skip: q.skip, acl: false, reuse, narrow };
  let texts: string[] | undefined;
  let results: WireObject[] | undefined;
  if (heads.length) {
    // Include's objects spliced into the page's text (splice-includes.ts), else parsed as findObjects does.
    const read = await readPageWithIncludes(ctx.app.db, includedCache(ctx.app), plan.access, page, heads);
    texts = read.reread ? undefined : spliceIncludes(read.rows, heads, read.heads);
    if (!texts) results = await finishJoint(ctx, className, plan, q, read);
  } else {
    const rows = await readPage<PageRow>(ctx.app.db, page);
    // File references are expanded on the parsed objects, as findObjects does.
    if (rows.some(mayHoldFile)) results = await finishPage(ctx, className, plan, q, rows.map(parsedRow));
    else texts = rows.map(rowJson);
  }
  if (results) return count === undefined ? { results } : { results, count };
  const body = `{"results":[${(texts as string[]).join(',')}]`;
  return new RawJson(count === undefined ? `${body}}` : `${body},"count":${count}}`);
}

/**
 * The include heads of a query whose answer may be spliced (splice-includes.ts): every head a
 * Pointer field read with the page, whose class's objects need nothing done per object (no
 * Relation marker to add, no field dropped for some objects and not others). Undefined when the
 * query takes the parsing path.
 */
async function splicedHeads(ctx: RequestContext, plan: FindPlan, q: FindQuery, reuse: boolean): Promise<HeadWithPage[] | undefined> {
  if (!reuse) return undefined;
  const { db, classes } = ctx.app;
  const heads = await headsWithPage({ db, classes, access: plan.access }, plan.schema, q.include);
  if (heads.length !== new Set(q.include.map((p) => p[0])).size) return undefined;
  for (const h of heads) {
    const view = fieldView(plan.access, h.className);
    if ((view.invisible.length && view.selfId !== undefined) || hasRelationFields(await classes.find(h.className, db))) return undefined;
  }
  return heads;
}
