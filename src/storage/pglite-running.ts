/**
 * The statement the embedded engine's worker is running (pglite-host.ts), and the error its
 * callers get when the host cancels it: 124 for the statement timeout and for the slice (a
 * statement holding the engine while other work waits), a plain error when the worker died.
 */
import { ApiError } from '../errors/api-error.ts';

/** A caller waiting for its statement's rows. */
export type Pending = { resolve: (rows: Record<string, unknown>[]) => void; reject: (err: unknown) => void };

/** The statement the worker is running. */
export interface Running {
  id: number;
  startedAt: number;
  /** Set once it has run past the slice: the next waiter cancels it. */
  overSlice: boolean;
  timers: NodeJS.Timeout[];
  sliced: boolean;
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
