/**
 * Checkpoints for the embedded engine when it is idle. PGlite is PostgreSQL in single-user mode,
 * which never starts a checkpoint because of WAL volume (only a postmaster's checkpointer does):
 * left alone, everything written since the database was opened stays to be replayed, and a
 * cancelled statement's reopen (pglite-host.ts) replays all of it. Measured in
 * embedded-engine-bounds.test.ts: the first reopen after seeding 30,000 objects took 2.5 times as
 * long as the next ones. So after work, once the engine has been idle for a moment, the host
 * runs CHECKPOINT (a few ms to flush what is dirty; fsync is off in PGlite). An engine that is
 * never idle for a second (steady traffic) also checkpoints, every BUSY_EVERY_MS: else its WAL,
 * and so the next reopen, would grow without bound (30,000 inserts cost a reopen about 90-230 ms
 * of CPU on top of its 115-160 ms, measured with larder_embedded_reopen_cpu_seconds).
 */

/** Idle time before a checkpoint, ms. */
const IDLE_MS = 1000;
/** Least time between two checkpoints, ms. */
const EVERY_MS = 10_000;
/** Longest time between two checkpoints while the engine has work all along, ms. */
export const BUSY_EVERY_MS = 30_000;

/** Decides when the idle engine should checkpoint; `run` takes the engine like any statement. */
export class IdleCheckpoints {
  private dirty = false;
  /** When the last checkpoint ran; at the start, as if EVERY_MS ago (the first may run at once). */
  private lastAt = Date.now() - EVERY_MS;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** `run(idle)`: idle is false for the checkpoint of an engine busy all along. */
  constructor(private readonly run: (idle: boolean) => Promise<void>) {}

  /** The engine is taken: whatever runs may write. */
  busy(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // Queued behind the work now running; it cuts nothing (pglite-host.ts).
    if (Date.now() - this.lastAt >= BUSY_EVERY_MS) this.start(false);
  }

  /** The engine is free with nothing waiting. */
  idle(): void {
    if (!this.dirty || this.timer || this.stopped) return;
    const wait = Math.max(IDLE_MS, this.lastAt + EVERY_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start(true);
    }, wait);
    this.timer.unref();
  }

  private start(idle: boolean): void {
    this.dirty = false;
    this.lastAt = Date.now();
    // A failed checkpoint (the engine restarting, closed) is retried after the next work.
    this.run(idle).catch(() => (this.dirty = true));
  }

  /** No more checkpoints (the engine closes). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = false;
  }
}
