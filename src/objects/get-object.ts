import type { RequestContext } from '../app-context.ts';
import { readersOf } from '../app-context.ts';
import { checkClassPermission, classPermits } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { aclClause } from '../query/sql/compile-where.ts';
import { isBuiltInClass } from '../schema/types.ts';
import { ident, sql } from '../sql/fragment.ts';
import { encodeRow, type WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';
import { resolveIncludes } from './include.ts';
import { OBJECT_COLUMNS, type ObjectRow } from './object-row.ts';
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
  const { db, classes } = ctx.app;
  const schema = await classes.find(className);
  if (!schema) throw new ApiError('classNotFound');
  await checkClassPermission(ctx, className, 'get');
  const readers = await readersOf(ctx);
  const rows = await db.query<ObjectRow>(
    sql`SELECT ${OBJECT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ${objectId} AND ${aclClause(readers)}`,
  );
  if (!rows[0]) return undefined;
  const obj = encodeRow(rows[0], { className, withAcl: opts.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries) });
  if (opts.include.length) await resolveIncludes({ db, classes, readers, permits: (c) => classPermits(ctx, c, 'get') }, [obj], opts.include);
  await expandFiles(db, [obj]);
  return projectKeys(obj, opts.keys);
}

/** The error for a missing object of a built-in class (400/211). */
export function missingBuiltIn(className: string): ApiError | undefined {
  return isBuiltInClass(className) ? new ApiError('userNotFound', className === '_User' ? undefined : `Could not find object by id in class ${className}.`) : undefined;
}
