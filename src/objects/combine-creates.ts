/**
 * Concurrent creates of one class, inserted together (issue 16). Up to MAX_IN_FLIGHT inserts of
 * a class run at once in this process, each alone, exactly as without this file; creates that
 * arrive while that many are in flight wait and go as one multi-row INSERT when one ends (the
 * statement a batch of creates uses). So under load one statement, one round trip and one commit
 * serve several creates, and PostgreSQL's per-statement and per-commit work is shared; at low
 * concurrency nothing waits.
 *
 * Each create keeps its own objectId, timestamps and ACL (they were fixed before it queued), so
 * its answer is the same as alone. A group is one statement: all its rows or none. When PostgreSQL
 * refuses the group's statement for a row's content (a value it cannot store, a duplicate id),
 * nothing was written and each member runs alone, so it gets exactly the answer it would have got
 * alone. Other failures (database unavailable, timeout) reach every member, as they would have
 * reached each one's own statement.
 */
import type { AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import { ApiError } from '../errors/api-error.ts';
import { busyOfProcess, slotsOfProcess } from './group-slots.ts';
import { SameRowQueue, settle, type Settled } from './same-row-queue.ts';

/**
 * Most rows in one INSERT (a group of concurrent creates). Small, so that the creates waiting when
 * a slot frees are spread over the next slots rather than all taken by the first: one large group
 * keeps every waiting client on one statement, and the server idles while PostgreSQL runs it.
 * 16 rows already share nearly all of a statement's fixed cost.
 */
const MAX_GROUP = 16;

/**
 * Inserts of one class running at once (in the whole server: each of several processes keeps its
 * share, group-slots.ts) before later ones wait and combine. Above one, so that a few concurrent
 * clients never wait for each other (as with a pool of separate statements); low, so that under
 * load the waiting creates form groups.
 */
export const MAX_IN_FLIGHT = 8;

/**
 * Once CREATES_BUSY inserts of a class are in flight, a create also waits when CREATES_PENDING or
 * more creates of the class are in flight or waiting (the rule of the random Increments,
 * combine-increments.ts ROWS_BUSY): 32 clients then keep 2-4 statements in flight, each carrying
 * about 8 rows, instead of 8 carrying about 3, and a few clients (up to 3 per process) still never
 * wait for each other. One statement and one commit less per group: PostgreSQL's CPU per create
 * fell by a third, the server's by a sixth (docs/benchmarks.md, "Grouped creates prepared, and
 * fewer, larger groups").
 */
export const CREATES_BUSY = 2;
export const CREATES_PENDING = 4;

/** This process's share of CREATES_BUSY and CREATES_PENDING (group-slots.ts), at least 3 pending. */
export function createsBusy(processes = 1): { inFlight: number; pending: number } {
  return busyOfProcess(CREATES_BUSY, CREATES_PENDING, processes, 3);
}

/**
 * Inserts of one class running at once before later ones wait, for creates that went through a
 * before extension first (a LeanEngine beforeSave: an HTTP call to the engine). Those reach the
 * insert one at a time, as the engine answers, so under load fewer than MAX_IN_FLIGHT were ever
 * in flight: each went alone, with a statement and a commit of its own (docs/benchmarks.md,
 * "Cloud code", 2026-11-27 06:00). With two, a create waits at most for the end of an insert,
 * milliseconds next to the hook call it already waited for, and the waiting ones go together.
 */
export const MAX_IN_FLIGHT_AFTER_BEFORE = 2;

/** What the queue holds for one create: its row, inserted by the function the caller gave. */
interface Part<R> {
  readonly row: R;
  readonly insert: (rows: readonly R[]) => Promise<void>;
}

/** The app's queue in this process (per app: its scope owns it, docs/architecture.md "Per-app state"). */
const QUEUE = appSlot<SameRowQueue<Part<unknown>, void>>('objects.createQueue');
/** The same for creates that went through a before extension (MAX_IN_FLIGHT_AFTER_BEFORE). */
const QUEUE_AFTER_BEFORE = appSlot<SameRowQueue<Part<unknown>, void>>('objects.createQueueAfterBefore');

function queueOf(app: Pick<AppContext, 'scope' | 'processes'>, afterBefore: boolean): SameRowQueue<Part<unknown>, void> {
  return afterBefore
    ? app.scope.ensure(QUEUE_AFTER_BEFORE, () => new SameRowQueue<Part<unknown>, void>(MAX_GROUP, MAX_IN_FLIGHT_AFTER_BEFORE))
    : app.scope.ensure(QUEUE, () => new SameRowQueue<Part<unknown>, void>(MAX_GROUP, slotsOfProcess(MAX_IN_FLIGHT, app.processes), createsBusy(app.processes)));
}

/** Errors PostgreSQL raises for a row's content before anything is written (driver-errors.ts). */
const REFUSED = new Set(['duplicateValue', 'invalidJson', 'incorrectType', 'invalidQuery']);

function refusedRow(err: unknown): boolean {
  return err instanceof ApiError && REFUSED.has(err.errorName);
}

/**
 * Inserts `row` of `className`, together with concurrent creates of the class when enough are in
 * flight. `insert` must insert any rows of the class in one statement (the members' functions
 * are interchangeable: the group runs its first member's). `afterBefore`: the create went through
 * a before extension (MAX_IN_FLIGHT_AFTER_BEFORE).
 */
export function insertTogether<R>(app: Pick<AppContext, 'scope' | 'processes'>, className: string, row: R, insert: (rows: readonly R[]) => Promise<void>, afterBefore = false): Promise<void> {
  const queue = queueOf(app, afterBefore);
  const part: Part<R> = { row, insert };
  return queue.submit(className, part as Part<unknown>, (parts) => runGroup(parts as readonly Part<R>[]));
}

/** Creates of `className` waiting for the next group in this process (for tests). */
export function createsWaiting(app: Pick<AppContext, 'scope'>, className: string, afterBefore = false): number {
  return app.scope.get(afterBefore ? QUEUE_AFTER_BEFORE : QUEUE)?.waiting(className) ?? 0;
}

async function runGroup<R>(parts: readonly Part<R>[]): Promise<readonly Settled<void>[]> {
  const alone = (p: Part<R>) => settle(() => p.insert([p.row]));
  if (parts.length === 1) return [await alone(parts[0])];
  try {
    await parts[0].insert(parts.map((p) => p.row));
  } catch (err) {
    if (refusedRow(err)) return Promise.all(parts.map(alone));
    return parts.map(() => ({ ok: false as const, error: err }));
  }
  return parts.map(() => ({ ok: true as const, value: undefined }));
}
