import type { RequestContext } from '../app-context.ts';
import { readersOf } from '../app-context.ts';
import { checkAddFields, checkClassPermission, checkInnerQueries } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, sql, type Sql } from '../sql/fragment.ts';
import type { ClassSchema } from '../schema/types.ts';
import { permsOf } from './acl.ts';
import { changedKeys, compileUpdate, typesOf } from './field-operations.ts';
import { compileFilter } from './find-objects.ts';
import { parseWriteBody } from './parse-write.ts';
import { applyRelationChanges } from './relation-rows.ts';
import { toIso } from './timestamps.ts';
import { writeAclClause } from './write-acl.ts';
import { whyNoWrite } from './write-outcome.ts';
import type { WireObject } from './encode.ts';

/** Options of an update. */
export interface UpdateOptions {
  /** `where` of a conditional update (query string); no match -> 305 and no change. */
  where?: unknown;
}

/** The outcome: updatedAt, and the fields the update changed (for fetchWhenSave). */
export interface Updated {
  updatedAt: string;
  changed: WireObject;
}

/**
 * Updates one object with a single UPDATE whose SET expression applies every __op to the
 * current row, so concurrent atomic operations never lose each other's effect. The write ACL
 * and the optional `where` are part of the same statement.
 */
export async function updateObject(ctx: RequestContext, className: string, objectId: string, body: unknown, opts: UpdateOptions): Promise<Updated> {
  const { db, classes } = ctx.app;
  const schema = await classes.find(className);
  if (!schema) throw new ApiError('classNotFound');
  await checkClassPermission(ctx, className, 'update');
  const parsed = parseWriteBody(body, 'update');
  await checkAddFields(ctx, schema, parsed.ops);
  const writers = await readersOf(ctx);
  const update = compileUpdate(parsed.ops);
  const types = typesOf(parsed.ops);
  const now = new Date().toISOString();
  let setAcl: Sql = sql``;
  if (parsed.acl) {
    const { rperm, wperm } = permsOf(parsed.acl);
    setAcl = sql`, acl = ${JSON.stringify(parsed.acl)}::jsonb, rperm = ${rperm}::text[], wperm = ${wperm}::text[]`;
  }
  let where: Sql = sql`TRUE`;
  if (opts.where !== undefined) {
    const compiled = compileFilter(schema, opts.where, ctx, writers);
    await checkInnerQueries(ctx, compiled.cond);
    where = compiled.filter;
  }
  const statement = sql`UPDATE ${ident(className)} SET data = ${update.data}, "updatedAt" = ${now}::timestamptz${setAcl}
    WHERE "objectId" = ${objectId} AND ${writeAclClause(writers)} AND ${where}
    RETURNING "updatedAt", data`;
  type Ret = { updatedAt: unknown; data: Record<string, unknown> };
  const needsTx = update.relations.length > 0 || !classes.knowsAll(className, types);
  let rows: Ret[];
  if (!needsTx) {
    rows = await db.query<Ret>(statement);
  } else {
    const result = await db.transaction(async (tx) => {
      const s: ClassSchema = await classes.lockFields(tx, className, types);
      const r = await tx.query<Ret>(statement);
      if (r[0]) await applyRelationChanges(tx, className, objectId, update.relations);
      return { r, s };
    });
    rows = result.r;
    if (rows[0]) classes.publish(result.s);
  }
  if (!rows[0]) throw await whyNoWrite(db, className, objectId, writers);
  const changed: WireObject = {};
  for (const k of changedKeys(parsed.ops)) if (Object.hasOwn(rows[0].data, k)) changed[k] = rows[0].data[k];
  if (parsed.acl) changed.ACL = parsed.acl;
  return { updatedAt: toIso(rows[0].updatedAt), changed };
}
