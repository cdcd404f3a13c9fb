/**
 * Page reads of an export that give way instead of failing. An export is background work: on
 * the embedded engine a statement that holds the database while requests wait is cancelled with
 * 124 (storage/pglite-host.ts), and on a busy machine one page of a thousand rows can take that
 * long. A job must not fail for that, so a page cancelled for time is read again with half the
 * rows (down to `minSize`), after a pause that lets the waiting requests through; the size
 * grows back after each page that went through. Only when even the smallest page keeps timing
 * out `maxTries` times does the error reach the job.
 */
import { ApiError } from '../errors/api-error.ts';

/** The page size of one export unit; it changes as pages time out and succeed. */
export interface PageSizer {
  size: number;
  readonly max: number;
}

export interface YieldOptions {
  /** Waits between two tries (the caller makes it stop the job when the job is stopped). */
  pause: (ms: number) => Promise<void>;
  minSize?: number;
  /** Tries at the smallest size before the timeout is the job's error. */
  maxTries?: number;
  pauseMs?: number;
}

const TIMEOUT_CODE = new ApiError('timeout').code;

/** A statement cancelled for running too long (or holding the embedded engine too long). */
function isTimeout(err: unknown): boolean {
  return err instanceof ApiError && err.code === TIMEOUT_CODE;
}

/** Reads one page with `read(limit)`, shrinking the page on timeouts as described above. */
export async function readYielding<T>(sizer: PageSizer, read: (limit: number) => Promise<T>, opts: YieldOptions): Promise<T> {
  const minSize = Math.min(opts.minSize ?? 25, sizer.max);
  const maxTries = opts.maxTries ?? 6;
  const pauseMs = opts.pauseMs ?? 250;
  let triesAtMin = 0;
  for (;;) {
    try {
      const page = await read(sizer.size);
      sizer.size = Math.min(sizer.max, sizer.size * 2);
      return page;
    } catch (err) {
      if (!isTimeout(err)) throw err;
      if (sizer.size > minSize) sizer.size = Math.max(minSize, Math.floor(sizer.size / 2));
      else if (++triesAtMin >= maxTries) throw err;
      await opts.pause(pauseMs * (1 + triesAtMin));
    }
  }
}
