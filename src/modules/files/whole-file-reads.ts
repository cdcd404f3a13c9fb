/**
 * Small files are read whole and sent in one write instead of being streamed 64 KiB at a time:
 * for a 1 MiB file that is one read and one socket write instead of sixteen of each, and about
 * a third less server CPU per download (docs/benchmarks.md, "Files"). Memory is the price, so
 * a process-wide budget bounds what all whole-file reads may hold at once; a file that does
 * not fit in what is left (many downloads at once) is streamed as before.
 */

/** Files up to this size may be read whole. */
export const WHOLE_READ_MAX_BYTES = 2 * 1024 * 1024;

/** Bytes that all whole-file reads of one process may hold at once. */
export const WHOLE_READ_BUDGET_BYTES = 32 * 1024 * 1024;

/** Bytes lent out of a fixed budget; every take is given back once. */
export class ByteBudget {
  private inUse = 0;

  constructor(private readonly total: number) {}

  /** Takes `n` bytes if they fit; false (nothing taken) when they do not. */
  take(n: number): boolean {
    if (this.inUse + n > this.total) return false;
    this.inUse += n;
    return true;
  }

  /** Gives back bytes taken before. */
  give(n: number): void {
    this.inUse -= n;
  }

  /** Bytes taken now (tests). */
  get used(): number {
    return this.inUse;
  }
}

/** The budget of this process (memory is per process, whatever the number of apps in it). */
export const wholeReads = new ByteBudget(WHOLE_READ_BUDGET_BYTES);
