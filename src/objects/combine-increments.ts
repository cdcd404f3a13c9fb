/**
 * Concurrent Increments of one field of one object, combined into one UPDATE (issue 16: the hot
 * row). Each process keeps at most one such UPDATE per row and field in flight (same-row-queue.ts);
 * Increments that arrive meanwhile go together as the next UPDATE, which adds the sum of their
 * amounts. Each caller gets the value its own Increment would have produced had the group run
 * one after another in arrival order, computed by PostgreSQL in `numeric` (exact, as the single
 * UPDATE computes it), and the group's one `updatedAt`. The group is atomic: all its Increments
 * are applied or none. Only plain bodies qualify: one top-level Increment, no ACL, no `where`, no
 * after extension (they need each write's own row), and a field whose type the class knows.
 * Whenever the group's UPDATE changes no row or PostgreSQL refuses a value (type, range), nothing
 * was written and each caller runs alone, so it gets exactly the answer it would have got alone.
 * A lone Increment (the only one of its row in flight) goes on to a second queue, per class, field
 * and row tests, where Increments of different rows that wait go as one UPDATE (runRows).
 */
import type { AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, jsonKey, sql } from '../sql/fragment.ts';
import type { Database } from '../storage/database.ts';
import { prepared } from '../storage/prepared-statements.ts';
import type { ParsedWrite } from '../model/write-ops.ts';
import type { WritePlan } from '../plan/index.ts';
import { busyOfProcess, slotsOfProcess } from './group-slots.ts';
import { SameRowQueue, settle, type Settled } from './same-row-queue.ts';
import { toIso } from './timestamps.ts';
import type { Updated } from './update-object.ts';

/** Most Increments in one UPDATE (the array parameter's length). */
const MAX_GROUP = 256;

/** One caller's part of a group: its amount, and how to run its update alone. */
interface Part {
  readonly amount: number;
  readonly alone: () => Promise<Updated>;
}

/** The object and field a group writes, and the row tests every member shares. */
export interface IncrementTarget {
  readonly className: string;
  readonly objectId: string;
  readonly field: string;
  readonly rowTests: WritePlan;
}

/** The app's queue in this process (per app: its scope owns it, docs/architecture.md "Per-app state"). */
const QUEUE = appSlot<SameRowQueue<Part, Updated>>('objects.incrementQueue');

/** One row's lone Increment, waiting to go with lone Increments of other rows. */
interface RowPart extends Part {
  readonly objectId: string;
}

/**
 * Lone Increments (one per row at a time: the queue above) of one class and field with the same
 * row tests: up to ROWS_IN_FLIGHT run at once (in the whole server: each of several processes keeps
 * its share, group-slots.ts), each alone as before; those that arrive while that
 * many are in flight go together as one UPDATE of several rows (as creates do, combine-creates.ts).
 * Once ROWS_BUSY are in flight, a lone Increment also waits when ROWS_PENDING or more of its key
 * are in flight or waiting: PostgreSQL's cost of this UPDATE is mostly per row (a non-HOT update
 * and its index entries), so groups of 2-3 saved little over lone statements, and with 8 in
 * flight 32 clients made groups of about 3; with 2, about 9, for a quarter to a third less CPU
 * per Increment in the server and in PostgreSQL. Few clients (4) still run alone: groups of 2
 * cost them more than they saved (docs/benchmarks.md, "Random increments: fewer, larger groups").
 */
const ROWS_QUEUE = appSlot<SameRowQueue<RowPart, Updated>>('objects.incrementRowsQueue');
export const ROWS_IN_FLIGHT = 8;
export const ROWS_BUSY = 2;
export const ROWS_PENDING = 4;
/** The least share of ROWS_PENDING a process keeps with several processes (rowsBusy). */
const ROWS_PENDING_LEAST = 3;
/**
 * This process's share of ROWS_BUSY and ROWS_PENDING (group-slots.ts), which are meant for the
 * whole server: each of two workers sees about half the clients, and with the whole thresholds in
 * each, twice the statements ran, each with about half the rows (commits per random Increment 0.3-0.5
 * against one process's 0.15-0.25). At least 3 pending, so three clients of one process never wait
 * for each other: with 2, eight clients over two workers made groups of two, which cost PostgreSQL
 * about a fifth more per Increment than lone statements (docs/benchmarks.md, "Two workers' random
 * increments").
 */
export function rowsBusy(processes = 1): { inFlight: number; pending: number } {
  return busyOfProcess(ROWS_BUSY, ROWS_PENDING, processes, ROWS_PENDING_LEAST);
}

/** Most rows in one such UPDATE (small for the reason given at combine-creates.ts MAX_GROUP). */
const ROWS_MAX_GROUP = 16;

/** The field and amount when the body is exactly one top-level Increment and nothing else. */
export function soleIncrement(parsed: ParsedWrite): { field: string; amount: number } | undefined {
  if (parsed.acl || parsed.ops.length !== 1) return undefined;
  const op = parsed.ops[0];
  if (op.kind !== 'increment' || op.path.length !== 1) return undefined;
  return { field: op.path[0], amount: op.amount };
}

/**
 * Runs one Increment, together with concurrent ones of the same target and row tests (same
 * caller rights), or alone through `alone` when none is in flight.
 */
export function incrementTogether(app: Pick<AppContext, 'db' | 'scope' | 'processes'>, target: IncrementTarget, amount: number, alone: () => Promise<Updated>): Promise<Updated> {
  const { db } = app;
  const queue = app.scope.ensure(QUEUE, () => new SameRowQueue<Part, Updated>(MAX_GROUP));
  const { writable, matches } = target.rowTests;
  // Only callers whose statements would be the same but for the amount share a group.
  const key = JSON.stringify([target.className, target.objectId, target.field, writable.parts, writable.values, matches.parts, matches.values]);
  return queue.submit(key, { amount, alone }, (parts) => runGroup(app, target, parts));
}

/** The rows queue's key: lone Increments with the same one share a statement. */
function rowsKey(target: Omit<IncrementTarget, 'objectId'>): string {
  const { writable, matches } = target.rowTests;
  return JSON.stringify([target.className, target.field, writable.parts, writable.values, matches.parts, matches.values]);
}

/** Lone Increments waiting to go with those of other rows (for tests). */
export function rowIncrementsWaiting(app: Pick<AppContext, 'scope'>, target: Omit<IncrementTarget, 'objectId'>): number {
  return app.scope.get(ROWS_QUEUE)?.waiting(rowsKey(target)) ?? 0;
}

/** A row's lone Increment: alone, or with lone Increments of other rows when enough are in flight. */
function incrementRows(app: Pick<AppContext, 'db' | 'scope' | 'processes'>, target: IncrementTarget, part: Part): Promise<Updated> {
  const queue = app.scope.ensure(ROWS_QUEUE, () => new SameRowQueue<RowPart, Updated>(ROWS_MAX_GROUP, slotsOfProcess(ROWS_IN_FLIGHT, app.processes), rowsBusy(app.processes)));
  return queue.submit(rowsKey(target), { ...part, objectId: target.objectId }, (rows) => runRows(app.db, target, rows));
}

/** Errors of a statement PostgreSQL refused before writing (the value's type or range). */
function refusedValue(err: unknown): boolean {
  return err instanceof ApiError && err.errorName === 'incorrectType';
}

async function runGroup(app: Pick<AppContext, 'db' | 'scope' | 'processes'>, target: IncrementTarget, parts: readonly Part[]): Promise<readonly Settled<Updated>[]> {
  if (parts.length === 1) return [await settle(() => incrementRows(app, target, parts[0]))];
  const { db } = app;
  let row: { updatedAt: unknown; each: unknown } | undefined;
  try {
    [row] = await db.query<{ updatedAt: unknown; each: unknown }>(groupStatement(target, parts.map((p) => p.amount)));
  } catch (err) {
    if (!refusedValue(err)) throw err;
  }
  const values = row?.each;
  if (!row || !Array.isArray(values) || values.length !== parts.length) {
    return Promise.all(parts.map((p) => settle(p.alone)));
  }
  const updatedAt = toIso(row.updatedAt);
  return parts.map((_, i) => ({ ok: true as const, value: { updatedAt, changed: { [target.field]: values[i] } } }));
}

/**
 * The group's UPDATE. The new value is the old one plus the sum of the amounts; the returned
 * array holds, per member in order, old value + its prefix sum (new - total + prefix), each
 * range-checked like a single Increment's result, so an intermediate value out of range refuses
 * the whole statement (and the members then run alone). Amounts go as `numeric`, as a single
 * Increment's amount does, so no sum is rounded in binary floating point.
 */
function groupStatement(target: IncrementTarget, amounts: readonly number[]) {
  const t = ident(target.className);
  const f = jsonKey(target.field);
  const now = new Date().toISOString();
  const sum = sql`(SELECT sum(a) FROM unnest(${amounts}::numeric[]) AS a)`;
  const newValue = sql`to_jsonb(larder_finite(larder_num(data->${f}) + ${sum}))`;
  const each = sql`(SELECT jsonb_agg(to_jsonb(larder_finite(larder_num(data->${f}) - p.total + p.prefix)) ORDER BY p.i)
    FROM (SELECT i, sum(a) OVER (ORDER BY i) AS prefix, sum(a) OVER () AS total
      FROM unnest(${amounts}::numeric[]) WITH ORDINALITY AS u(a, i)) AS p)`;
  const { writable, matches } = target.rowTests;
  return prepared(sql`UPDATE ${t} SET data = data || jsonb_build_object(${f}, ${newValue}), "updatedAt" = ${now}::timestamptz
    WHERE ${t}."objectId" = ${target.objectId} AND ${writable} AND ${matches}
    RETURNING "updatedAt", ${each} AS each`);
}

/**
 * Lone Increments of several rows (one class, field and row tests) as one UPDATE. Rows the UPDATE
 * does not return (missing, not writable, or locked by another statement: it skips those rather
 * than wait, so it can never deadlock) run alone, as does every member when PostgreSQL refuses a
 * value (type, range): then nothing was written. Each answer is its row's own new value and the
 * statement's `updatedAt`, as the update alone answers.
 */
async function runRows(db: Database, target: IncrementTarget, rows: readonly RowPart[]): Promise<readonly Settled<Updated>[]> {
  // Each row has at most one Increment in flight (the row queue), so ids are distinct; a repeat
  // would be applied once by the join, so any repeat runs alone.
  const ids = new Set<string>();
  const together = new Set<RowPart>();
  for (const r of rows) {
    if (ids.has(r.objectId)) continue;
    ids.add(r.objectId);
    together.add(r);
  }
  if (together.size < 2) return Promise.all(rows.map((r) => settle(r.alone)));
  let got: Map<string, { updatedAt: unknown; value: unknown }>;
  try {
    const res = await db.query<{ objectId: string; updatedAt: unknown; value: unknown }>(rowsStatement(target, [...together]));
    got = new Map(res.map((r) => [r.objectId, r]));
  } catch (err) {
    if (!refusedValue(err)) throw err;
    return Promise.all(rows.map((r) => settle(r.alone)));
  }
  return Promise.all(rows.map((r) => {
    const row = together.has(r) ? got.get(r.objectId) : undefined;
    if (!row) return settle(r.alone);
    return { ok: true as const, value: { updatedAt: toIso(row.updatedAt), changed: { [target.field]: row.value } } };
  }));
}

/**
 * The UPDATE of several rows' Increments: each row's amount from the arrays, the rows locked
 * first with SKIP LOCKED (a row another statement holds is left out, and its caller runs alone).
 * Its text depends only on the class, the field and the row tests' shape: prepared.
 */
function rowsStatement(target: IncrementTarget, rows: readonly RowPart[]) {
  const t = ident(target.className);
  const f = jsonKey(target.field);
  const now = new Date().toISOString();
  const ids = rows.map((r) => r.objectId);
  const { writable, matches } = target.rowTests;
  // The locks are taken once, in the CTE (a sub-select joined to the UPDATE would be rescanned
  // per row); the UPDATE then writes only rows this statement holds, so it never waits.
  return prepared(sql`WITH l AS (SELECT "objectId" FROM ${t} WHERE "objectId" = ANY(${ids}::text[]) FOR UPDATE SKIP LOCKED)
    UPDATE ${t} SET data = data || jsonb_build_object(${f}, to_jsonb(larder_finite(larder_num(data->${f}) + u.a))), "updatedAt" = ${now}::timestamptz
    FROM unnest(${ids}::text[], ${rows.map((r) => r.amount)}::numeric[]) AS u(id, a) JOIN l ON l."objectId" = u.id
    WHERE ${t}."objectId" = u.id AND ${writable} AND ${matches}
    RETURNING ${t}."objectId", ${t}."updatedAt", ${t}.data->${f} AS value`);
}
