/**
 * Checkpoints for the embedded engine when it is idle. PGlite is PostgreSQL in single-user mode,
 * which never starts a checkpoint because of WAL volume (only a postmaster's checkpointer does):
 * left alone, everything written since the database was opened stays to be replayed, and a
 * cancelled statement's reopen (pglite-host.ts) replays all of it. Measured in
 * embedded-engine-bounds.test.ts: the first reopen after seeding 30,000 objects took 2.5 times as
 * long as the next ones. So after work, once the engine has been idle for a moment, the host
 * runs CHECKPOINT (a few ms to flush what is dirty; fsync is off in PGlite).
 */

/** Idle time before a checkpoint, ms. */
const IDLE_MS = 1000;
/** Least time between two checkpoints, ms. */
const EVERY_MS = 10_000;

/** Decides when the idle engine should checkpoint; `run` takes the engine like any statement. */
export class IdleCheckpoints {
  private dirty = false;
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly run: () => Promise<void>) {}

  /** The engine is taken: whatever runs may write. */
  busy(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The engine is free with nothing waiting. */
  idle(): void {
    if (!this.dirty || this.timer || this.stopped) return;
    const wait = Math.max(IDLE_MS, this.lastAt + EVERY_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dirty = false;
      this.lastAt = Date.now();
      // A failed checkpoint (the engine restarting, closed) is retried after the next work.
      this.run().catch(() => (this.dirty = true));
    }, wait);
    this.timer.unref();
  }

  /** No more checkpoints (the engine closes). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = false;
  }
}
