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
 */
import type { AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, jsonKey, sql } from '../sql/fragment.ts';
import type { Database } from '../storage/database.ts';
import { prepared } from '../storage/prepared-statements.ts';
import type { ParsedWrite } from '../model/write-ops.ts';
import type { WritePlan } from '../plan/index.ts';
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
export function incrementTogether(app: Pick<AppContext, 'db' | 'scope'>, target: IncrementTarget, amount: number, alone: () => Promise<Updated>): Promise<Updated> {
  const { db } = app;
  const queue = app.scope.ensure(QUEUE, () => new SameRowQueue<Part, Updated>(MAX_GROUP));
  const { writable, matches } = target.rowTests;
  // Only callers whose statements would be the same but for the amount share a group.
  const key = JSON.stringify([target.className, target.objectId, target.field, writable.parts, writable.values, matches.parts, matches.values]);
  return queue.submit(key, { amount, alone }, (parts) => runGroup(db, target, parts));
}

/** Errors of a statement PostgreSQL refused before writing (the value's type or range). */
function refusedValue(err: unknown): boolean {
  return err instanceof ApiError && err.errorName === 'incorrectType';
}

async function runGroup(db: Database, target: IncrementTarget, parts: readonly Part[]): Promise<readonly Settled<Updated>[]> {
  if (parts.length === 1) return [await settle(parts[0].alone)];
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
