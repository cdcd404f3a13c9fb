import { readersOf } from '../app-context.js';
import { checkClassPermission, checkInnerQueries, classPermits } from '../auth/class-permissions.js';
import { checkHiddenFields, checkHiddenOrder } from '../auth/hidden-field-guard.js';
import { parseWhere } from '../query/parse-where.js';
import { aclClause, compileWhere } from '../query/sql/compile-where.js';
import { compileOrder } from '../query/sql/compile-order.js';
import { ident, sql } from '../sql/fragment.js';
import { encodeOwnedRow } from './encode.js';
import { expandFiles } from './expand-files.js';
import { resolveIncludes } from './include.js';
import { OBJECT_COLUMNS, TEXT_COLUMNS } from './object-row.js';
import { mayHoldFile, parsedRow, RawJson, rowJson, textEncodable } from './raw-json.js';
import { projectKeys } from './project-keys.js';
/** Compiles the WHERE of a query (condition AND ACL) and the distance order of $nearSphere. */
export function compileFilter(schema, where, ctx, readers) {
    const cond = parseWhere(where ?? {});
    // Hidden fields (_User tokens, hashes) cannot be queried except with the master key.
    if (readers !== null)
        checkHiddenFields(schema.name, cond);
    const compiled = compileWhere(cond, { schema, schemaOf: (n) => ctx.app.classes.cached(n), readers });
    return { filter: sql `(${compiled.condition}) AND ${aclClause(readers)}`, nearOrder: compiled.nearOrder, cond };
}
/** Runs the checks of a class query and compiles it; undefined for an unknown class. */
async function planFind(ctx, className, q) {
    const schema = await ctx.app.classes.find(className);
    if (!schema)
        return undefined;
    await checkClassPermission(ctx, className, 'find');
    if (!ctx.master)
        checkHiddenOrder(className, q.order);
    const readers = await readersOf(ctx);
    const { filter, nearOrder, cond } = compileFilter(schema, q.where, ctx, readers);
    await checkInnerQueries(ctx, cond);
    const order = q.order ? compileOrder(q.order, schema) : nearOrder ? sql `${nearOrder}, "objectId"` : sql `"createdAt", "objectId"`;
    const withAcl = q.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries);
    return { table: ident(className), filter, order, readers, withAcl };
}
async function countOf(ctx, plan) {
    const [{ n }] = await ctx.app.db.query(sql `SELECT count(*)::int AS n FROM ${plan.table} WHERE ${plan.filter}`);
    return n;
}
/** Encodes a page of rows, then include, file expansion and key projection. */
async function finishPage(ctx, className, plan, q, rows) {
    const { db, classes } = ctx.app;
    const schema = classes.cached(className);
    const objects = rows.map((r) => encodeOwnedRow(r, { className, withAcl: plan.withAcl, master: ctx.master, schema }));
    if (q.include.length)
        await resolveIncludes({ db, classes, readers: plan.readers, permits: (c) => classPermits(ctx, c, 'get') }, objects, q.include);
    await expandFiles(db, objects);
    return q.keys ? objects.map((o) => projectKeys(o, q.keys)) : objects;
}
async function runFind(ctx, className, plan, q) {
    const out = { results: [] };
    if (q.count)
        out.count = await countOf(ctx, plan);
    if (q.limit > 0) {
        const rows = await ctx.app.db.query(sql `SELECT ${OBJECT_COLUMNS} FROM ${plan.table} WHERE ${plan.filter} ORDER BY ${plan.order} LIMIT ${q.limit} OFFSET ${q.skip}`);
        out.results = await finishPage(ctx, className, plan, q, rows);
    }
    return out;
}
/**
 * Runs a class query: filter + ACL in SQL, order, limit/skip, then include, file expansion and
 * key projection on the page. An unknown class is an empty result, as in the original service.
 */
export async function findObjects(ctx, className, q) {
    const plan = await planFind(ctx, className, q);
    if (!plan)
        return q.count ? { results: [], count: 0 } : { results: [] };
    return runFind(ctx, className, plan, q);
}
/**
 * findObjects for an HTTP answer: the same checks and statement, but when nothing has to be
 * done to the objects (no include, keys or ACL, no hidden fields, no file on the page) the
 * answer is spliced from the documents' jsonb text instead of parsing and re-serialising each
 * one. Otherwise the answer is findObjects'.
 */
export async function findObjectsJson(ctx, className, q) {
    if (q.include.length || q.keys || q.limit <= 0 || !textEncodable(className, await ctx.app.classes.find(className)))
        return findObjects(ctx, className, q);
    const plan = await planFind(ctx, className, q);
    if (!plan)
        return q.count ? { results: [], count: 0 } : { results: [] };
    if (plan.withAcl)
        return runFind(ctx, className, plan, q);
    const count = q.count ? await countOf(ctx, plan) : undefined;
    const rows = await ctx.app.db.query(sql `SELECT ${TEXT_COLUMNS} FROM ${plan.table} WHERE ${plan.filter} ORDER BY ${plan.order} LIMIT ${q.limit} OFFSET ${q.skip}`);
    if (rows.some(mayHoldFile)) {
        // File references are expanded on the parsed objects, as findObjects does.
        const results = await finishPage(ctx, className, plan, q, rows.map(parsedRow));
        return count === undefined ? { results } : { results, count };
    }
    const results = `{"results":[${rows.map(rowJson).join(',')}]`;
    return new RawJson(count === undefined ? `${results}}` : `${results},"count":${count}}`);
}
//# sourceMappingURL=find-objects.js.map