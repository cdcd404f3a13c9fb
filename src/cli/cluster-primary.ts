/**
 * The cluster primary of `larder serve --workers N` (PostgreSQL only): a one-off child prepares
 * the database, then the primary forks the workers, prints the banner once all of them listen,
 * replaces a worker that dies, and stops them all on SIGTERM. It serves no requests, so it loads
 * none of the server's modules (serve.ts imports them where they are used).
 */
import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { AppKeys } from './key-disclosure.ts';
import { banner } from './start-banner.ts';
import { primaryMetrics } from './metrics-serving.ts';
import { SHUTDOWN_DEADLINE_MS } from './shutdown-deadline.ts';

/** Set in the environment of the one-off child that migrates before the workers start. */
export const PREPARE_ROLE = 'LARDER_CLUSTER_PREPARE';

/** What the preparing child tells the primary: the keys for the banner. */
export interface Prepared {
  keys: AppKeys & { hookKey: string };
  generatedKeys: string[];
  /** This start ran the first migration: the database was empty. */
  freshDatabase: boolean;
}

/** The cluster primary: has a child prepare the database, then forks and watches the workers. */
export async function runPrimary(config: Config, logger: Logger, print: (line: string) => void, workers: number): Promise<void> {
  const prepared = await runPrepare();
  if (!prepared) return;
  const engineProcess = config.engineDir ? await import('./engine-process.ts') : undefined;
  const engine = await engineProcess?.planEngine(config);
  // The workers call the engine the primary supervises.
  const env = { ...workerEnv(process.env), ...(engine ? { LARDER_ENGINE_URL: engine.url } : {}) };
  let supervisor: import('../cloud/engine-supervisor.ts').EngineSupervisor | undefined;
  // Before the workers: a scrape of any worker is answered with every worker's metrics.
  const metrics = await primaryMetrics(config, logger);
  for (let i = 0; i < workers; i++) cluster.fork(env);
  let stopping = false;
  // Which workers listen, one by one: the start is over once `workers` of them do at the same
  // time. (A count of listening events is not enough: a worker that listened and died before
  // its sibling listened must be replaced, not taken for a start that failed.)
  const listeners = new Set<number>();
  let started = false;
  // A replacement that dies before it listens (the database is unreachable) is forked again
  // after a wait that doubles up to 30 s, so the primary does not fork in a tight loop.
  let retryMs = 0;
  const retries = new Set<NodeJS.Timeout>();
  const cancelRetries = () => (retries.forEach((t) => clearTimeout(t)), retries.clear());
  cluster.on('listening', (w) => {
    listeners.add(w.id);
    retryMs = 0;
    if (started || listeners.size < workers) return;
    started = true;
    // The banner says "listening" only once every worker does.
    banner(config, prepared.keys, prepared.generatedKeys, print, workers, prepared.freshDatabase);
    // Once the engine answers, one worker reads its hook list and shares it with the others.
    if (engine) supervisor = engineProcess?.startEngine(config, engine, prepared.keys, logger, () => void engineProcess?.refreshThroughWorkers(config, prepared.keys, logger));
  });
  cluster.on('exit', (w, code, signal) => {
    const listened = listeners.delete(w.id);
    if (stopping) return;
    // Not `pid` (the record's own pid is the primary's) and not `code` (redacted as a secret).
    const record = { workerPid: w.process.pid, exitCode: code, signal };
    if (!listened && !started && !signal) {
      // A worker that ends itself before it listens at the start (port taken, database gone)
      // would end again: stop instead of forking in a loop. The worker printed its reason.
      // (One killed by a signal, e.g. by the kernel's OOM killer, is replaced below.)
      logger.error(record, 'worker exited before it listened; stopping');
      stopping = true;
      cancelRetries();
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      return;
    }
    if (listened) {
      logger.error(record, 'worker exited; starting a new one');
      return void cluster.fork(env);
    }
    retryMs = Math.min(Math.max(retryMs * 2, 1000), 30_000);
    logger.error({ ...record, retryInMs: retryMs }, 'worker exited; starting a new one');
    const retry = setTimeout(() => {
      retries.delete(retry);
      cluster.fork(env);
    }, retryMs);
    retries.add(retry);
  });
  const stop = () => {
    stopping = true;
    cancelRetries();
    metrics?.close();
    const workersGone = Promise.all(
      Object.values(cluster.workers ?? {}).map((w) => new Promise<void>((gone) => {
        if (!w || w.isDead()) return gone();
        w.once('exit', () => gone());
        w.process.kill('SIGTERM');
      })),
    );
    // The engine's pipes and sockets must not keep the primary alive once everything stopped.
    if (supervisor) void Promise.all([workersGone, supervisor.stop()]).then(() => process.exit(process.exitCode ?? 0));
    // Workers end themselves within SHUTDOWN_DEADLINE_MS; one that does not is killed.
    const deadline = setTimeout(() => {
      logger.error({ afterMs: SHUTDOWN_DEADLINE_MS + 5000 }, 'workers did not stop; killing them');
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      void (supervisor?.stop() ?? Promise.resolve()).then(() => process.exit(1));
    }, SHUTDOWN_DEADLINE_MS + 5000);
    deadline.unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * Memory settings for cluster workers, unless the operator set them. Password hashing (scrypt,
 * 16 MiB each) runs on libuv's thread pool, 4 threads per process by default: with one worker
 * per core, 2 threads per worker still keep every core busy, and halve the hashing memory each
 * worker can hold at once. glibc gives every thread its own malloc arena, which keeps freed
 * memory resident; 2 arenas keep a worker's RSS about 40 MB lower under the bench's load.
 */
export function workerEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  if (env.UV_THREADPOOL_SIZE === undefined) out.UV_THREADPOOL_SIZE = '2';
  if (env.MALLOC_ARENA_MAX === undefined) out.MALLOC_ARENA_MAX = '2';
  return out;
}

/**
 * Forks the preparing child and waits for it. Undefined when it failed: it printed why, and
 * its exit code (2 for a settings mistake) becomes the primary's.
 */
function runPrepare(): Promise<Prepared | undefined> {
  return new Promise((done) => {
    let prepared: Prepared | undefined;
    const child = cluster.fork({ [PREPARE_ROLE]: '1' });
    child.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'prepared' in m) prepared = (m as { prepared: Prepared }).prepared;
    });
    const interrupted = () => child.process.kill('SIGTERM');
    process.once('SIGTERM', interrupted);
    process.once('SIGINT', interrupted);
    child.on('exit', (code) => {
      process.off('SIGTERM', interrupted);
      process.off('SIGINT', interrupted);
      if (!prepared) process.exitCode = code || 1;
      done(prepared);
    });
  });
}
