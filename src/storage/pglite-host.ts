/**
 * The main-thread side of the embedded engine (issue 12 item 1). PGlite runs in a worker thread
 * (pglite-worker.mjs), so the event loop keeps answering `/health` and other requests while a
 * statement runs. PGlite is one connection and has no way to cancel a statement, so this host:
 *
 * - runs one statement or one transaction at a time (a FIFO lock), as PGlite itself did;
 * - bounds every statement like PostgreSQL's statement_timeout (LARDER_STATEMENT_TIMEOUT_MS,
 *   code 124 after the same limit);
 * - bounds how long one statement may hold the engine while other work waits
 *   (LARDER_EMBEDDED_SLICE_MS, default 1 s): past that it is cancelled with 124 too, so one heavy
 *   query cannot stall every other request for the whole statement timeout;
 * - cancels by terminating the worker and activating a warm spare worker (pglite-spare.ts) on
 *   the same data directory: an uncommitted transaction is rolled back by PostgreSQL's crash
 *   recovery, committed ones stay.
 */
import type { Worker } from 'node:worker_threads';
import { ApiError } from '../errors/api-error.ts';
import { embeddedReopenCpuSeconds, embeddedReopenSeconds, statementTimeouts } from '../metrics/core-metrics.ts';
import { driverError, type HostMessage, type WorkerError } from './pglite-protocol.ts';
import { IdleCheckpoints } from './pglite-checkpoint.ts';
import { upkeepRound, type Maintenance } from './pglite-upkeep.ts';
import { cancelError, startRunning, type CancelReason, type Pending, type Running } from './pglite-running.ts';
import { activateSpare, prepareSpare, type Spare } from './pglite-spare.ts';
import { EngineTurns } from './engine-turns.ts';
import { ChannelListeners } from './pglite-listeners.ts';
import type { PgliteHostOptions } from './pglite-host-options.ts';

export type { PgliteHostOptions };

/** The embedded engine behind a worker thread; see the file comment. */
export class PgliteHost {
  private worker: Worker | undefined;
  /** The next worker, warmed while this one works (see spawn). */
  private spare: Promise<Spare> | undefined;
  private ready: Promise<void> = Promise.resolve();
  /** Bumped by every cancellation: work of an older generation (a transaction) is void. */
  private generation = 0;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private running: Running | undefined;
  private readonly turns = new EngineTurns();
  /** 1 while a checkpoint waits for the engine: a waiter that is no reason to cut. */
  private checkpointWaiting = 0;
  private closed = false;
  /** True from a cancellation until the new worker has opened the database. */
  private restarting = false;
  private readonly listeners = new ChannelListeners();

  /** Checkpoints (pglite-checkpoint.ts), when idle after the tables' upkeep (pglite-upkeep.ts). */
  private readonly checkpoints = new IdleCheckpoints(async (idle) => {
    const engine = { run: (m: Maintenance) => this.maintain(m), idle: () => !this.turns.busy && this.turns.queued === 0 && !this.closed };
    if (idle) await upkeepRound(engine, this.opts.schema, this.opts.onUpkeep).catch(() => {});
    await this.maintain({ op: 'exec', text: 'CHECKPOINT' });
  });

  constructor(private readonly opts: PgliteHostOptions) {}

  /** Starts the first worker; resolves when the database is open. */
  async start(): Promise<void> {
    this.spawn();
    await this.ready;
  }

  /** A spare worker (pglite-spare.ts) whose messages and death count once it is the engine. */
  private prepare(): Promise<Spare> {
    return prepareSpare(this.opts.dataDir, this.opts.schema, {
      onMessage: (worker, m) => {
        if (this.worker !== worker) return;
        if (!('notify' in m)) return this.settle(m);
        this.listeners.deliver(m.notify, m.payload);
      },
      onDeath: (worker, err) => this.worker === worker && !this.closed && this.cancel('crash', err),
    });
  }

  /**
   * Opens the database in the spare worker (or a new one), once `stopping` (the cancelled
   * worker's termination) is over: two PostgreSQL instances never share the data directory.
   * Then warms the next spare, so that a cancellation costs only PostgreSQL's start on the data
   * directory, not loading and instantiating PGlite (docs/security.md).
   */
  private spawn(stopping?: Promise<unknown>, lostNotifications = false): void {
    const generation = this.generation;
    const spare = this.spare ?? this.prepare();
    this.spare = undefined;
    const t0 = performance.now();
    this.ready = (async () => {
      const { worker, opened } = await spare;
      await stopping?.catch(() => {});
      this.worker = worker;
      const cost = await activateSpare({ worker, opened });
      if (generation > 0) {
        embeddedReopenSeconds.observe((performance.now() - t0) / 1000);
        if (cost) embeddedReopenCpuSeconds.observe(cost.cpuMs / 1000);
      }
      if (generation !== this.generation) return;
      // A restarted engine listens again. Only a cut statement that may have notified (or a
      // crash) can have lost a notification (pglite-running.ts, mayNotify): then listeners reload.
      for (const channel of this.listeners.channels()) await this.send(worker, { id: 0, op: 'listen', channel });
      if (lostNotifications) this.listeners.reset();
    })();
    this.ready.catch(() => {});
    this.ready.then(() => {
      if (this.closed || this.spare) return;
      this.spare = this.prepare();
      this.spare.catch(() => {});
    }, () => {});
  }

  private settle(m: { id: number; rows: Record<string, unknown>[] } | { id: number; error: WorkerError }): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.running?.id === m.id) this.stopClock();
    if ('error' in m) p.reject(driverError(m.error));
    else p.resolve(m.rows);
  }

  private stopClock(): void {
    for (const t of this.running?.timers ?? []) clearTimeout(t);
    this.running = undefined;
  }

  /**
   * Cancels whatever runs: its caller gets 124, the worker is terminated and a new one starts.
   * Work of the old generation (the rest of a transaction) fails instead of running outside it.
   */
  private cancel(reason: CancelReason, cause?: unknown): void {
    if (this.closed) return;
    const ranMs = this.running ? Date.now() - this.running.startedAt : 0;
    const lost = reason === 'crash' || this.running?.mayNotify === true;
    this.stopClock();
    this.generation++;
    const err = cancelError(reason, this.opts, cause);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    const old = this.worker;
    this.worker = undefined;
    if (reason !== 'crash') statementTimeouts.inc();
    this.opts.onCancel?.({ reason, ranMs });
    this.restarting = true;
    this.spawn(old?.terminate(), lost);
    this.ready.then(() => (this.restarting = false), () => {});
  }

  /**
   * Cancels statement `id` after the event loop's next poll: an answer the worker already sent
   * (a statement that ended, and committed, just as its time ran out) is taken first and the
   * statement is not cut. Cut at once, its caller would get 124 for a committed write, and a
   * retry would write it twice (seen in export-yield.test.ts at load 28: 23505 on a retried insert).
   */
  private cutSoon(id: number, reason: CancelReason): void {
    setImmediate(() => {
      if (this.running?.id === id) this.cancel(reason);
    });
  }

  /** Waits for the engine; if its last start failed, starts it once more. */
  private async ensureReady(): Promise<void> {
    try {
      await this.ready;
    } catch {
      if (this.closed) throw new Error('the embedded database is closed');
      this.spawn(undefined, this.generation > 0);
      await this.ready;
    }
  }

  /** Sends one operation of generation `generation` and waits for its answer. */
  private async call(m: HostMessage, generation: number, timed = true): Promise<Record<string, unknown>[]> {
    if (this.closed) throw new Error('the embedded database is closed');
    await this.ensureReady();
    if (generation !== this.generation) throw new ApiError('timeout', 'The request timed out on the server: its transaction was cancelled.');
    const worker = this.worker;
    if (!worker) throw new Error('the embedded engine is not running');
    return this.send(worker, m, timed);
  }

  /** Posts one operation to `worker`; a timed one is watched by the statement timeout and slice. */
  private send(worker: Worker, m: HostMessage, timed = false): Promise<Record<string, unknown>[]> {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (timed) this.running = startRunning(id, m, this.opts, (reason) => this.cutSoon(id, reason), () => this.turns.queued > this.checkpointWaiting);
      worker.postMessage({ ...m, id });
    });
  }

  /**
   * Takes the engine (engine-turns.ts: in order, cheap statements before heavy ones). A waiter
   * arriving while a statement is past its slice cancels it.
   */
  private async lock(checkpoint = false, heavy = false): Promise<() => void> {
    const turn = this.turns.take(heavy);
    if (turn) {
      // A checkpoint waits without cutting anything (pglite-checkpoint.ts).
      if (checkpoint) this.checkpointWaiting++;
      else if (this.running?.overSlice && this.running.sliced) this.cutSoon(this.running.id, 'slice');
      await turn;
      if (checkpoint) this.checkpointWaiting--;
    }
    if (!checkpoint) this.checkpoints.busy();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // After a checkpoint too: work that came meanwhile (and passed its turn on) is still to upkeep.
      if (!this.turns.pass()) this.checkpoints.idle();
    };
  }

  /** Runs one statement on its own; `heavy`: a class query, which lets cheap waiters go first. */
  async query(text: string, values: unknown[], prepared = false, heavy = false): Promise<Record<string, unknown>[]> {
    const release = await this.lock(false, heavy);
    try {
      return await this.call({ id: 0, op: 'query', text, values, prepared }, this.generation);
    } finally {
      release();
    }
  }

  /**
   * Runs raw SQL text: migrations and DDL of Larder's own, never request data. Not bounded:
   * a migration cut halfway on a slow machine would only run again at every start.
   */
  async exec(text: string): Promise<void> {
    await this.maintain({ op: 'exec', text }, false);
  }

  /** `upkeep`: checkpoint and upkeep, which cut nothing and are no work to checkpoint after. */
  private async maintain(m: Maintenance, upkeep = true): Promise<Record<string, unknown>[]> {
    const release = await this.lock(upkeep);
    try {
      return await this.call({ id: 0, ...m }, this.generation, false);
    } finally {
      release();
    }
  }

  /** Runs `work` in one transaction; every statement in it is bounded like any other. */
  async transaction<T>(work: (query: (text: string, values: unknown[], prepared?: boolean) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
    const release = await this.lock();
    const generation = this.generation;
    const q = (text: string, values: unknown[], prepared = false) => this.call({ id: 0, op: 'query', text, values, prepared }, generation);
    try {
      await q('BEGIN', []);
      const result = await work(q);
      await q('COMMIT', []);
      return result;
    } catch (err) {
      if (generation === this.generation) await q('ROLLBACK', []).catch(() => {});
      throw err;
    } finally {
      release();
    }
  }

  /** Forwards notifications of `channel` (pglite-listeners.ts); `onReset` runs after a restart that may have lost some. */
  async listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<() => Promise<void>> {
    const release = await this.lock();
    try {
      if (!this.listeners.has(channel)) await this.call({ id: 0, op: 'listen', channel }, this.generation, false);
      // Registered after the worker listens: a restart from now on listens again.
      return this.listeners.add({ channel, onMessage, onReset });
    } finally {
      release();
    }
  }

  /**
   * Readiness: the engine is alive. While it works, or restarts after a cancellation, the
   * watchdog bounds the wait, so no probe queues behind it (a probe that waited would make a
   * load balancer drop a healthy server). A restart that failed is reported by the next probe.
   */
  async ping(): Promise<void> {
    if (this.turns.busy || this.restarting) return;
    await this.query('SELECT 1', []);
  }

  /** Closes the database and stops the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.checkpoints.stop();
    const release = await this.lock();
    try {
      await this.ready.catch(() => {});
      await this.call({ id: 0, op: 'close' }, this.generation, false).catch(() => {});
    } finally {
      this.closed = true;
      this.stopClock();
      await this.worker?.terminate();
      this.worker = undefined;
      const spare = this.spare;
      this.spare = undefined;
      await spare?.then((s) => s.worker.terminate(), () => {});
      release();
    }
  }
}
