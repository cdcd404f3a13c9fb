import { readersOf } from '../app-context.js';
import { checkClassPermission, classPermits } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { aclClause } from '../query/sql/compile-where.js';
import { isBuiltInClass } from '../schema/types.js';
import { ident, sql } from '../sql/fragment.js';
import { prepared } from '../storage/prepared-statements.js';
import { encodeOwnedRow } from './encode.js';
import { expandFiles } from './expand-files.js';
import { resolveIncludes } from './include.js';
import { OBJECT_COLUMNS, TEXT_COLUMNS } from './object-row.js';
import { mayHoldFile, parsedRow, RawJson, rowJson, textEncodable } from './raw-json.js';
import { projectKeys } from './project-keys.js';
/**
 * Reads one object. Unknown class: 404/101. Unknown id, or an object the caller may not read
 * (indistinguishable on purpose): undefined; the route turns that into 200 {} for user
 * classes and 400/211 for built-in ones.
 */
export async function getObject(ctx, className, objectId, opts) {
    const readers = await checkGet(ctx, className);
    const rows = await ctx.app.db.query(prepared(sql `SELECT ${OBJECT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ${objectId} AND ${aclClause(readers)}`));
    return rows[0] ? finish(ctx, className, rows[0], readers, opts) : undefined;
}
/** The checks of a get (404/101 for an unknown class, class permission); the caller's readers. */
async function checkGet(ctx, className) {
    if (!(await ctx.app.classes.find(className)))
        throw new ApiError('classNotFound');
    await checkClassPermission(ctx, className, 'get');
    return readersOf(ctx);
}
async function finish(ctx, className, row, readers, opts) {
    const { db, classes } = ctx.app;
    const obj = encodeOwnedRow(row, { className, withAcl: withAcl(ctx, opts), master: ctx.master, schema: classes.cached(className) });
    if (opts.include.length)
        await resolveIncludes({ db, classes, readers, permits: (c) => classPermits(ctx, c, 'get') }, [obj], opts.include);
    await expandFiles(db, [obj]);
    return projectKeys(obj, opts.keys);
}
function withAcl(ctx, opts) {
    return opts.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries);
}
/**
 * getObject for an HTTP answer: when nothing has to be done to the object (no include, keys or
 * ACL, no hidden fields, no file in it) the answer is spliced from the document's jsonb text
 * (raw-json.ts); otherwise it is getObject's.
 */
export async function getObjectJson(ctx, className, objectId, opts) {
    if (opts.include.length || opts.keys || withAcl(ctx, opts) || !textEncodable(className, await ctx.app.classes.find(className)))
        return getObject(ctx, className, objectId, opts);
    const readers = await checkGet(ctx, className);
    const rows = await ctx.app.db.query(prepared(sql `SELECT ${TEXT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ${objectId} AND ${aclClause(readers)}`));
    const row = rows[0];
    if (!row)
        return undefined;
    return mayHoldFile(row) ? finish(ctx, className, parsedRow(row), readers, opts) : new RawJson(rowJson(row));
}
/** The error for a missing object of a built-in class (400/211). */
export function missingBuiltIn(className) {
    return isBuiltInClass(className) ? new ApiError('userNotFound', className === '_User' ? undefined : `Could not find object by id in class ${className}.`) : undefined;
}
//# sourceMappingURL=get-object.js.map