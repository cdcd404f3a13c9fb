import type { RequestContext } from '../app-context.ts';
import { checkAddFields, checkClassPermission } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, sql, type Sql } from '../sql/fragment.ts';
import { prepared } from '../storage/prepared-statements.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { permsOf } from '../model/acl.ts';
import { changedKeys, compileUpdate, typesOf } from './field-operations.ts';
import { parseWriteBody } from './parse-write.ts';
import { applyRelationChanges } from './relation-rows.ts';
import { toIso } from './timestamps.ts';
import { accessOf, planWrite, type Access, type WritePlan } from '../plan/index.ts';
import { whyNoWrite } from './write-outcome.ts';
import type { WireObject } from './encode.ts';
import type { ObjectRow } from './object-row.ts';
import { restObjectOf, splitWriteBody, storedObject } from './write-body.ts';
import type { ParsedWrite } from '../model/write-ops.ts';
import { runWrite, type Committed } from '../writes/run-write.ts';
import { incrementTogether, soleIncrement } from './combine-increments.ts';
import type { WriteEvent } from '../writes/write-extension-api.ts';
import type { WriteNeeds } from '../writes/write-extensions.ts';

/** Options of an update. */
export interface UpdateOptions {
  /** `where` of a conditional update (query string); no match -> 305 and no change. */
  where?: unknown;
  /**
   * Class rules that run first in the check stage, on the client's body and again on a body a
   * before extension replaced it with (roles: name and membership rules). Returns the body to write.
   */
  prepareBody?: (body: unknown) => unknown | Promise<unknown>;
}

/** The outcome: updatedAt, and the fields the update changed (for fetchWhenSave). */
export interface Updated {
  updatedAt: string;
  changed: WireObject;
}

/** An update that passed validation and permissions: what the statement needs. */
interface CheckedUpdate {
  readonly parsed: ParsedWrite;
  readonly access: Access;
  /** The write ACL and the `where` (plan/plan-write.ts). */
  readonly rowTests: WritePlan;
  /** A conditional update (`where`): its statement text follows the client's query. */
  readonly conditional: boolean;
}

/** Validation and permissions of an update (the pipeline's first two stages). */
async function checkUpdate(ctx: RequestContext, className: string, sent: unknown, opts: UpdateOptions): Promise<CheckedUpdate> {
  const body = opts.prepareBody ? await opts.prepareBody(sent) : sent;
  const schema = await ctx.app.classes.find(className);
  if (!schema) throw new ApiError('classNotFound');
  await checkClassPermission(ctx, className, 'update');
  const parsed = parseWriteBody(body, 'update');
  await checkAddFields(ctx, schema, parsed.ops);
  const access = await accessOf(ctx);
  const rowTests = await planWrite(access, schema, { where: opts.where });
  return { parsed, access, rowTests, conditional: opts.where !== undefined };
}

type Ret = { updatedAt: unknown; data: Record<string, unknown> };
type FullRet = ObjectRow & { p_id?: string; p_created?: unknown; p_updated?: unknown; p_acl?: ObjectRow['acl']; p_data?: Record<string, unknown> };

/**
 * The UPDATE. Without extensions it returns only what the response needs; with after
 * extensions the whole new row, and with `previous` also the row as it was, read in the same
 * statement (a locking sub-select joined to the update), so no extra round trip is made.
 */
function updateStatement(className: string, objectId: string, w: CheckedUpdate, data: Sql, now: string, needs: WriteNeeds): Sql {
  const t = ident(className);
  let setAcl: Sql = sql``;
  if (w.parsed.acl) {
    const { rperm, wperm } = permsOf(w.parsed.acl);
    setAcl = sql`, acl = ${JSON.stringify(w.parsed.acl)}::jsonb, rperm = ${rperm}::text[], wperm = ${wperm}::text[]`;
  }
  const set = sql`SET data = ${data}, "updatedAt" = ${now}::timestamptz${setAcl}`;
  const cond = sql`${t}."objectId" = ${objectId} AND ${w.rowTests.writable} AND ${w.rowTests.matches}`;
  if (!needs.after) {
    const plain = sql`UPDATE ${t} ${set} WHERE ${cond} RETURNING "updatedAt", data`;
    // Without a `where` the text depends only on the class and which fields the body changes
    // how, and the plan is always the primary key: a named statement skips parsing and planning
    // (docs/benchmarks.md: increments).
    return w.conditional ? plain : prepared(plain);
  }
  const row = sql`${t}."objectId", ${t}."createdAt", ${t}."updatedAt", ${t}.acl, ${t}.data`;
  if (!needs.previous) return sql`UPDATE ${t} ${set} WHERE ${cond} RETURNING ${row}`;
  return sql`UPDATE ${t} ${set}
    FROM (SELECT "objectId" AS p_id, "createdAt" AS p_created, "updatedAt" AS p_updated, acl AS p_acl, data AS p_data
      FROM ${t} WHERE "objectId" = ${objectId} FOR UPDATE) AS p
    WHERE ${t}."objectId" = p.p_id AND ${cond}
    RETURNING ${row}, p.p_id, p.p_created, p.p_updated, p.p_acl, p.p_data`;
}

/**
 * The SQL stage. A lone Increment of a known field, with nothing to hand to after extensions,
 * goes together with concurrent ones of the same row (combine-increments.ts); the rest commits alone.
 */
async function commitUpdate(ctx: RequestContext, className: string, objectId: string, w: CheckedUpdate, needs: WriteNeeds): Promise<Committed<Updated>> {
  const inc = !needs.after && !w.conditional ? soleIncrement(w.parsed) : undefined;
  if (inc && ctx.app.classes.knowsAll(className, typesOf(w.parsed.ops))) {
    const target = { className, objectId, field: inc.field, rowTests: w.rowTests };
    const alone = async () => (await commitAlone(ctx, className, objectId, w, needs)).result;
    return { result: await incrementTogether(ctx.app, target, inc.amount, alone) };
  }
  return commitAlone(ctx, className, objectId, w, needs);
}

/** One update's own statement (a transaction when fields are new or relations change). */
async function commitAlone(ctx: RequestContext, className: string, objectId: string, w: CheckedUpdate, needs: WriteNeeds): Promise<Committed<Updated>> {
  const { db, classes } = ctx.app;
  const { parsed } = w;
  const types = typesOf(parsed.ops);
  const now = new Date().toISOString();
  const update = compileUpdate(parsed.ops);
  const statement = updateStatement(className, objectId, w, update.data, now, needs);
  const needsTx = update.relations.length > 0 || !classes.knowsAll(className, types);
  let rows: FullRet[];
  if (!needsTx) {
    rows = await db.query<FullRet>(statement);
  } else {
    const result = await db.transaction(async (tx) => {
      const s: ClassSchema = await classes.lockFields(tx, className, types);
      const r = await tx.query<FullRet>(statement);
      if (r[0]) await applyRelationChanges(tx, className, objectId, update.relations);
      return { r, s };
    });
    rows = result.r;
    if (rows[0]) classes.publish(result.s);
  }
  const row = rows[0] as (Ret & FullRet) | undefined;
  if (!row) throw await whyNoWrite(db, className, objectId, w.access);
  const keys = changedKeys(parsed.ops);
  const changed: WireObject = {};
  for (const k of keys) if (Object.hasOwn(row.data, k)) changed[k] = row.data[k];
  if (parsed.acl) changed.ACL = parsed.acl;
  const result = { updatedAt: toIso(row.updatedAt), changed };
  if (!needs.after) return { result };
  const previous = needs.previous && row.p_id
    ? restObjectOf(className, { objectId: row.p_id, createdAt: row.p_created, updatedAt: row.p_updated, acl: row.p_acl ?? null, data: row.p_data ?? {} })
    : undefined;
  const event: WriteEvent = {
    ctx, className, op: 'update', source: 'api', objectId,
    object: restObjectOf(className, row),
    previous,
    updatedKeys: [...new Set(parsed.ops.map((op) => op.path[0]))].concat(parsed.acl ? ['ACL'] : []),
    flags: parsed.flags,
  };
  return { result, events: [event] };
}

/**
 * Updates one object with a single UPDATE whose SET expression applies every __op to the
 * current row, so concurrent atomic operations never lose each other's effect. The write ACL
 * and the optional `where` are part of the same statement. Runs through the write pipeline.
 */
export function updateObject(ctx: RequestContext, className: string, objectId: string, body: unknown, opts: UpdateOptions): Promise<Updated> {
  return runWrite(ctx, {
    className,
    op: 'update',
    objectId,
    body,
    split: splitWriteBody,
    check: (b) => checkUpdate(ctx, className, b, opts),
    stored: () => storedObject(ctx, className, objectId),
    commit: (w, needs) => commitUpdate(ctx, className, objectId, w, needs),
  });
}
