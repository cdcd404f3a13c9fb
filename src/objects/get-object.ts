import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { accessOf, droppedFrom, fieldView, selectById, type Access } from '../plan/index.ts';
import { isBuiltInClass, type ClassSchema } from '../model/class-schema.ts';
import { prepared } from '../storage/prepared-statements.ts';
import { encodeOwnedRow, type WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';
import { resolveIncludes } from './include.ts';
import { OBJECT_COLUMNS, TEXT_COLUMNS, type ObjectRow } from './object-row.ts';
import { mayHoldFile, parsedRow, RawJson, rowJson, type TextRow } from './raw-json.ts';
import { projectKeys, type KeySelection } from './project-keys.ts';
import { hasRelationFields } from './relation-fields.ts';

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
  const { access, schema } = await checkGet(ctx, className);
  const rows = await ctx.app.db.query<ObjectRow>(prepared(selectById(access, className, OBJECT_COLUMNS, objectId)));
  return rows[0] ? finish(ctx, className, rows[0], { access, schema }, opts) : undefined;
}

/** Who reads and the class read. */
interface Checked {
  access: Access;
  schema: ClassSchema;
}

/** The checks of a get (404/101 for an unknown class, class permission); the caller's access. */
async function checkGet(ctx: RequestContext, className: string): Promise<Checked> {
  const schema = await ctx.app.classes.find(className);
  if (!schema) throw new ApiError('classNotFound');
  const access = await accessOf(ctx);
  await access.require(className, 'get');
  return { access, schema };
}

async function finish(ctx: RequestContext, className: string, row: ObjectRow, { access, schema }: Checked, opts: GetOptions): Promise<WireObject> {
  const { db, classes } = ctx.app;
  const view = fieldView(access, className);
  const obj = encodeOwnedRow(row, { className, withAcl: withAcl(ctx, opts), master: view.master, drop: droppedFrom(view, row.objectId), schema });
  if (opts.include.length) await resolveIncludes({ db, classes, access }, [obj], opts.include);
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
  if (opts.include.length || opts.keys || withAcl(ctx, opts)) return getObject(ctx, className, objectId, opts);
  const checked = await checkGet(ctx, className);
  const { access } = checked;
  // Rows that need fields dropped or Relation markers added go through the parsing path.
  if (!fieldView(access, className).textEncodable || hasRelationFields(checked.schema)) {
    const rows = await ctx.app.db.query<ObjectRow>(prepared(selectById(access, className, OBJECT_COLUMNS, objectId)));
    return rows[0] ? finish(ctx, className, rows[0], checked, opts) : undefined;
  }
  const rows = await ctx.app.db.query<TextRow>(prepared(selectById(access, className, TEXT_COLUMNS, objectId)));
  const row = rows[0];
  if (!row) return undefined;
  return mayHoldFile(row) ? finish(ctx, className, parsedRow(row), checked, opts) : new RawJson(rowJson(row));
}

/** The error for a missing object of a built-in class (400/211). */
export function missingBuiltIn(className: string): ApiError | undefined {
  return isBuiltInClass(className) ? new ApiError('userNotFound', className === '_User' ? undefined : `Could not find object by id in class ${className}.`) : undefined;
}
