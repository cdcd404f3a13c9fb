/**
 * The statement the embedded engine's worker is running (pglite-host.ts), and the error its
 * callers get when the host cancels it: 124 for the statement timeout and for the slice (a
 * statement holding the engine while other work waits), a plain error when the worker died.
 */
import { ApiError } from '../errors/api-error.ts';
import type { HostMessage } from './pglite-protocol.ts';

/** A caller waiting for its statement's rows. */
export type Pending = { resolve: (rows: Record<string, unknown>[]) => void; reject: (err: unknown) => void };

/** The statement the worker is running. */
export interface Running {
  id: number;
  startedAt: number;
  /** Set once it has run past the slice: the next waiter cancels it. */
  overSlice: boolean;
  timers: NodeJS.Timeout[];
  /** Cut when it holds the engine past the slice while others wait (isSliced). */
  sliced: boolean;
  /** It may deliver a notification (see mayNotify): cut, that notification may be lost. */
  mayNotify: boolean;
}

/**
 * Whether a statement may deliver a notification: it calls pg_notify or NOTIFY (all of Larder's
 * are `SELECT pg_notify(...)` on their own), or it commits a transaction that may have called it.
 * A cancelled statement that cannot has lost nothing: the notifications of every statement before
 * it reached the host before their answers (one message port, in order), and an uncommitted
 * transaction notifies nobody. So only after cutting such a statement (or a crash) do listeners
 * reload what they cache (their `onReset`), which would otherwise cost every request after a
 * cancellation extra statements, each of which may wait behind the next heavy one.
 */
export function mayNotify(text: string): boolean {
  return /notify/i.test(text) || /^\s*commit\b/i.test(text);
}

/** Why the host cancelled what ran. */
export type CancelReason = 'timeout' | 'slice' | 'crash';

/** The error every caller of a cancelled generation gets. */
export function cancelError(reason: CancelReason, limits: { sliceMs: number; statementTimeoutMs: number }, cause?: unknown): Error {
  if (reason === 'crash') return Object.assign(new Error('the embedded engine stopped while running a statement'), { cause });
  return new ApiError('timeout', reason === 'slice'
    ? `The request timed out on the server: the statement held the embedded database for more than ${limits.sliceMs} ms while other requests waited.`
    : `The request timed out on the server: the statement ran for more than ${limits.statementTimeoutMs} ms.`);
}

/**
 * Whether a statement may be cut by the slice: every query but a schema change (CREATE, ALTER,
 * DROP: a class's first table, a module's tables and indexes, a new column). Those are Larder's
 * own, not a cost a client chooses, and one cut halfway would only run again, and be cut again,
 * at the next use while requests wait (an index built on a large existing table). They stay
 * bounded by the statement timeout, as on PostgreSQL.
 */
export function isSliced(text: string): boolean {
  return !/^\s*(create|alter|drop)\b/i.test(text);
}

/**
 * Starts the clock of timed operation `id`: the statement timeout, and for a sliced statement the
 * slice, past which it is cut when `othersWait()` (other work waits for the engine).
 */
export function startRunning(id: number, m: HostMessage, limits: { sliceMs: number; statementTimeoutMs: number }, cut: (reason: CancelReason) => void, othersWait: () => boolean): Running {
  const running: Running = { id, startedAt: Date.now(), overSlice: false, timers: [], sliced: m.op === 'query' && isSliced(m.text), mayNotify: 'text' in m && mayNotify(m.text) };
  if (limits.statementTimeoutMs > 0) running.timers.push(setTimeout(() => cut('timeout'), limits.statementTimeoutMs));
  if (running.sliced && limits.sliceMs > 0) {
    running.timers.push(setTimeout(() => {
      running.overSlice = true;
      if (othersWait()) cut('slice');
    }, limits.sliceMs));
  }
  return running;
}
