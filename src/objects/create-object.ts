import type { RequestContext } from '../app-context.ts';
import { checkAddFields, checkClassPermission } from '../auth/class-permissions.ts';
import { defaultAclFor } from '../auth/default-acl.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, sql, Sql } from '../sql/fragment.ts';
import { isPrepared, prepared } from '../storage/prepared-statements.ts';
import type { ClassSchema, FieldSchema } from '../model/class-schema.ts';
import type { RelationChange } from '../model/write-ops.ts';
import { permsOf, type Acl } from '../model/acl.ts';
import { applyOnCreate, typesOf } from './field-operations.ts';
import { newObjectId } from '../model/object-id.ts';
import { parseWriteBody } from './parse-write.ts';
import { applyRelationChanges } from './relation-rows.ts';
import type { WireObject } from './encode.ts';
import { addRelationMarkers } from './relation-fields.ts';
import { expandFiles } from './expand-files.ts';
import { restObjectOfNew, splitWriteBody } from './write-body.ts';
import { runWrite } from '../writes/run-write.ts';
import { insertTogether } from './combine-creates.ts';
import type { WriteEvent, WriteFlags } from '../writes/write-extension-api.ts';

/** The outcome of a create: the stored object in wire form. */
export interface Created {
  objectId: string;
  createdAt: string;
  object: WireObject;
}

/** A create that passed every check and is ready to insert. */
export interface PreparedCreate {
  objectId: string;
  now: string;
  acl: unknown;
  rperm: string[];
  wperm: string[];
  data: Record<string, unknown>;
  relations: RelationChange[];
  types: Record<string, FieldSchema>;
  /** Request flags of the body (`__ignore_hooks`...), for the write pipeline's extensions. */
  flags: WriteFlags;
}

/**
 * The class-level part of a create's checks, the same for every object created in one class by
 * one request: the class permission, the schema, and the default ACL (with its perms) for
 * objects sent without one. A batch run of creates computes it once instead of per object.
 */
export interface CreateClassContext {
  className: string;
  schema: ClassSchema | undefined;
  defaultAcl: () => Promise<{ acl: Acl; rperm: string[]; wperm: string[] }>;
}

/** Checks the class permission to create and gathers what every create in the class needs. */
export async function createClassContext(ctx: RequestContext, className: string): Promise<CreateClassContext> {
  await checkClassPermission(ctx, className, 'create');
  let defaults: Promise<{ acl: Acl; rperm: string[]; wperm: string[] }> | undefined;
  return {
    className,
    schema: await ctx.app.classes.find(className),
    defaultAcl: () =>
      (defaults ??= defaultAclFor(ctx, className).then((acl) => ({ acl, ...permsOf(acl) }))),
  };
}

/** Runs the per-object checks of a create (add_fields, body) and builds the row. */
export async function prepareInClass(ctx: RequestContext, cls: CreateClassContext, body: unknown, now: string): Promise<PreparedCreate> {
  const parsed = parseWriteBody(body, 'create');
  await checkAddFields(ctx, cls.schema, parsed.ops);
  // Objects without an ACL share one default ACL object (and its perms): insertPrepared sends
  // a shared ACL once for all rows.
  const { acl, rperm, wperm } = parsed.acl ? { acl: parsed.acl, ...permsOf(parsed.acl) } : await cls.defaultAcl();
  const { data, relations } = applyOnCreate(parsed.ops);
  return { objectId: newObjectId(), now, acl, rperm, wperm, data, relations, types: typesOf(parsed.ops), flags: parsed.flags };
}

/** Runs every check of a create (class permission, add_fields, body) and builds the row. */
export async function prepareCreate(ctx: RequestContext, className: string, body: unknown): Promise<PreparedCreate> {
  return prepareInClass(ctx, await createClassContext(ctx, className), body, new Date().toISOString());
}

// The single-object INSERT's text depends only on the class: its parts are built once per class
// rather than on every create (issue 16). Bounded like the prepared texts it feeds.
const singleInsertCache = new Map<string, readonly string[]>();
const MAX_CACHED_CLASSES = 1000;

function singleInsertParts(className: string): readonly string[] {
  const hit = singleInsertCache.get(className);
  if (hit) return hit;
  const v = null;
  const { parts } = sql`INSERT INTO ${ident(className)} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES (${v}, ${v}::timestamptz, ${v}::timestamptz, ${v}::jsonb, ${v}::text[], ${v}::text[], ${v}::jsonb)`;
  if (singleInsertCache.size < MAX_CACHED_CLASSES) singleInsertCache.set(className, parts);
  return parts;
}

/** The INSERT of prepared rows: the cheapest form for their shape. */
function insertStatement(className: string, rows: readonly PreparedCreate[]): Sql {
  if (rows.length === 1) {
    // One object (a plain create): a plain VALUES row, the cheapest statement to plan.
    const [r] = rows;
    return prepared(new Sql(singleInsertParts(className), [r.objectId, r.now, r.now, JSON.stringify(r.acl), r.rperm, r.wperm, JSON.stringify(r.data)]));
  }
  const table = ident(className);
  const columns = sql`("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)`;
  if (rows.every((r) => r.acl === rows[0].acl)) {
    // The usual batch, and a group of concurrent creates without ACLs (combine-creates.ts: every
    // object has the same ACL object, e.g. the default): the ACL goes once, and the documents as
    // one JSON array (no array-literal escaping of each document). ROWS FROM zips the ids, times
    // and documents in one function scan, with no join, so the text depends only on the class and
    // the plan is that scan: prepared, so PostgreSQL neither parses nor plans it per group. (It was
    // a join of two WITH ORDINALITY scans, unprepared: parsing and planning it were about a tenth
    // of PostgreSQL's CPU under concurrent creates; docs/benchmarks.md, "Grouped creates prepared".)
    return prepared(sql`INSERT INTO ${table} ${columns}
      SELECT t.id, t.ts, t.ts, ${JSON.stringify(rows[0].acl)}::jsonb, ${rows[0].rperm}::text[], ${rows[0].wperm}::text[], t.doc
      FROM ROWS FROM (unnest(${rows.map((r) => r.objectId)}::text[]), unnest(${rows.map((r) => r.now)}::timestamptz[]),
        jsonb_array_elements(${JSON.stringify(rows.map((r) => r.data))}::jsonb)) AS t(id, ts, doc)`);
  }
  // Rows with their own ACLs (a batch or a group of creates with ACLs of their own): the text
  // depends only on the class and the plan is one scan of the arrays, so it is prepared too.
  return prepared(sql`INSERT INTO ${table} ${columns}
    SELECT id, ts, ts, acl, string_to_array(rp, chr(31)), string_to_array(wp, chr(31)), data
    FROM unnest(${rows.map((r) => r.objectId)}::text[], ${rows.map((r) => r.now)}::timestamptz[], ${rows.map((r) => JSON.stringify(r.acl))}::jsonb[],
      ${rows.map((r) => r.rperm.join('\x1f'))}::text[], ${rows.map((r) => r.wperm.join('\x1f'))}::text[], ${rows.map((r) => JSON.stringify(r.data))}::jsonb[])
      AS t(id, ts, acl, rp, wp, data)`);
}

/**
 * Inserts prepared creates of one class in ONE statement (batches of creates become one
 * multi-row insert). The class and new fields are registered in the same transaction as the
 * insert, so a failed write leaves no half-made schema; when the class and every field are
 * already known and there are no relations, the insert needs no transaction.
 *
 * `before`: a write of the caller's own (a module's bookkeeping row) that must commit with the
 * rows or not at all. It runs first, in the same statement (a data-modifying WITH: one round
 * trip) or, when there is a transaction, as its first statement.
 */
export async function insertPrepared(ctx: RequestContext, className: string, rows: readonly PreparedCreate[], before?: Sql): Promise<void> {
  if (!rows.length) return;
  const { db, classes } = ctx.app;
  const types: Record<string, FieldSchema> = {};
  for (const r of rows) Object.assign(types, r.types);
  const insert = insertStatement(className, rows);
  const relations = rows.some((r) => r.relations.length);
  const known = classes.cached(className) && rows.every((r) => classes.knowsAll(className, r.types));
  if (known && !relations) {
    await db.query(before ? withBefore(before, insert) : insert);
    return;
  }
  const schema: ClassSchema = await db.transaction(async (tx) => {
    if (before) await tx.query(before);
    await classes.ensureClass(tx, className);
    // Each object's own types are checked; a conflict between two new objects is caught too.
    let s: ClassSchema = await classes.lockFields(tx, className, rows[0].types);
    for (const r of rows.slice(1)) s = await classes.lockFields(tx, className, r.types);
    await tx.query(insert);
    for (const r of rows) await applyRelationChanges(tx, className, r.objectId, r.relations);
    return s;
  });
  classes.publish(schema);
}

/** `before` and the insert as one statement; prepared when both parts are (fixed shapes). */
function withBefore(before: Sql, insert: Sql): Sql {
  const both = sql`WITH before_insert AS (${before}) ${insert}`;
  return isPrepared(before) && isPrepared(insert) ? prepared(both) : both;
}

/**
 * Inserts one prepared create. When the class and its fields are known and there are no
 * relations (one plain statement), it goes together with concurrent creates of the class
 * (combine-creates.ts); otherwise alone, in its transaction.
 */
function insertOne(ctx: RequestContext, className: string, row: PreparedCreate, afterBefore: boolean): Promise<void> {
  const { classes } = ctx.app;
  if (row.relations.length || !classes.cached(className) || !classes.knowsAll(className, row.types)) return insertPrepared(ctx, className, [row]);
  return insertTogether(ctx.app, className, row, (rows) => insertPrepared(ctx, className, rows), afterBefore);
}

/** The created object in wire form, as a fetchWhenSave response shows it. */
export function createdObject(p: PreparedCreate): WireObject {
  return { ...p.data, objectId: p.objectId, createdAt: p.now, updatedAt: p.now };
}

/** The after-stage event of a committed create. */
export function createdEvent(ctx: RequestContext, className: string, p: PreparedCreate, flags: WriteFlags): WriteEvent {
  return { ctx, className, op: 'create', source: 'api', objectId: p.objectId, object: restObjectOfNew(className, p.data, { objectId: p.objectId, now: p.now, acl: p.acl }), flags };
}

/** Options of createObject. */
export interface CreateOptions {
  /** Class rules run first in the check stage, also on a body a before extension replaced (roles). */
  prepareBody?: (body: unknown) => unknown;
}

/** Creates one object, through the write pipeline. */
export function createObject(ctx: RequestContext, className: string, body: unknown, opts: CreateOptions = {}): Promise<Created> {
  const { prepareBody } = opts;
  return runWrite(ctx, {
    className,
    op: 'create',
    body,
    split: splitWriteBody,
    check: (b) => prepareCreate(ctx, className, prepareBody ? prepareBody(b) : b),
    // A before extension answered the body unchanged (a no-op beforeSave): the checks passed on
    // this very body before the call; only the timestamp is taken again, after it. Class rules
    // (prepareBody) are run again as they would be, so only bodies without them skip.
    unchanged: prepareBody ? undefined : (w) => ({ ...w, now: new Date().toISOString() }),
    commit: async (prepared, needs) => {
      // After a before extension (a beforeSave call to the engine) creates arrive spread out:
      // they group with fewer inserts in flight (combine-creates.ts).
      await insertOne(ctx, className, prepared, needs.before);
      // The full object is built only when asked for (fetchWhenSave); most creates answer without it.
      let object: WireObject | undefined;
      const result: Created = {
        objectId: prepared.objectId,
        createdAt: prepared.now,
        get object() {
          return (object ??= createdObject(prepared));
        },
      };
      return needs.after ? { result, events: [createdEvent(ctx, className, prepared, prepared.flags)] } : { result };
    },
  });
}

/**
 * A freshly written object for a fetchWhenSave / new=true answer: file references expanded and
 * the class's Relation markers added, as a GET of the object would show them.
 */
export async function withFiles(ctx: RequestContext, className: string, object: WireObject): Promise<WireObject> {
  addRelationMarkers(object, ctx.app.classes.cached(className));
  await expandFiles(ctx.app.db, [object]);
  return object;
}

/** Refuses writes to a class name that cannot be created by clients. */
export function assertWritableClass(className: string): void {
  if (className === '_File') throw new ApiError('forbidden', 'Files are created through /1.1/files.');
}
