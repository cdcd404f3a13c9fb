import type { RequestContext } from '../app-context.ts';
import { readersOf } from '../app-context.ts';
import { checkClassPermission, classPermits } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { aclClause } from '../query/sql/compile-where.ts';
import { isBuiltInClass } from '../schema/types.ts';
import { ident, sql } from '../sql/fragment.ts';
import { prepared } from '../storage/prepared-statements.ts';
import { encodeOwnedRow, type WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';
import { resolveIncludes } from './include.ts';
import { OBJECT_COLUMNS, TEXT_COLUMNS, type ObjectRow } from './object-row.ts';
import { mayHoldFile, parsedRow, RawJson, rowJson, textEncodable, type TextRow } from './raw-json.ts';
import { projectKeys, type KeySelection } from './project-keys.ts';

/** Options of a get by id. */
export interface GetOptions {
  keys?: KeySelection;
  include: string[][];
  /** returnACL=true: honoured when the app option is on, or with the master key. */
  returnACL: boolean;
}

/**
 * Reads one object. Unknown class: 404/101. Unknown id, or an object the caller may not read
 * (indistinguishable on purpose): undefined; the route turns that into 200 {} for user
 * classes and 400/211 for built-in ones.
 */
export async function getObject(ctx: RequestContext, className: string, objectId: string, opts: GetOptions): Promise<WireObject | undefined> {
  const readers = await checkGet(ctx, className);
  const rows = await ctx.app.db.query<ObjectRow>(
    prepared(sql`SELECT ${OBJECT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ${objectId} AND ${aclClause(readers)}`),
  );
  return rows[0] ? finish(ctx, className, rows[0], readers, opts) : undefined;
}

/** The checks of a get (404/101 for an unknown class, class permission); the caller's readers. */
async function checkGet(ctx: RequestContext, className: string): Promise<readonly string[] | null> {
  if (!(await ctx.app.classes.find(className))) throw new ApiError('classNotFound');
  await checkClassPermission(ctx, className, 'get');
  return readersOf(ctx);
}

async function finish(ctx: RequestContext, className: string, row: ObjectRow, readers: readonly string[] | null, opts: GetOptions): Promise<WireObject> {
  const { db, classes } = ctx.app;
  const obj = encodeOwnedRow(row, { className, withAcl: withAcl(ctx, opts), master: ctx.master, schema: classes.cached(className) });
  if (opts.include.length) await resolveIncludes({ db, classes, readers, permits: (c) => classPermits(ctx, c, 'get') }, [obj], opts.include);
  await expandFiles(db, [obj]);
  return projectKeys(obj, opts.keys);
}

function withAcl(ctx: RequestContext, opts: GetOptions): boolean {
  return opts.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries);
}

/**
 * getObject for an HTTP answer: when nothing has to be done to the object (no include, keys or
 * ACL, no hidden fields, no file in it) the answer is spliced from the document's jsonb text
 * (raw-json.ts); otherwise it is getObject's.
 */
export async function getObjectJson(ctx: RequestContext, className: string, objectId: string, opts: GetOptions): Promise<WireObject | RawJson | undefined> {
  if (opts.include.length || opts.keys || withAcl(ctx, opts) || !textEncodable(className, await ctx.app.classes.find(className))) return getObject(ctx, className, objectId, opts);
  const readers = await checkGet(ctx, className);
  const rows = await ctx.app.db.query<TextRow>(
    prepared(sql`SELECT ${TEXT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ${objectId} AND ${aclClause(readers)}`),
  );
  const row = rows[0];
  if (!row) return undefined;
  return mayHoldFile(row) ? finish(ctx, className, parsedRow(row), readers, opts) : new RawJson(rowJson(row));
}

/** The error for a missing object of a built-in class (400/211). */
export function missingBuiltIn(className: string): ApiError | undefined {
  return isBuiltInClass(className) ? new ApiError('userNotFound', className === '_User' ? undefined : `Could not find object by id in class ${className}.`) : undefined;
}
