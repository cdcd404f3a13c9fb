/**
 * Starting the embedded engine's worker thread in two steps (issue 12 item 1). A worker is first
 * started as far as it gets without the data directory: PGlite loaded, its WebAssembly
 * instantiated, PostgreSQL's share files unpacked. It then waits for `activate` and only then
 * starts PostgreSQL on the data directory. The host keeps one such spare warm while the engine
 * works, so replacing a cancelled worker costs PostgreSQL's start alone (docs/security.md).
 */
import { Worker } from 'node:worker_threads';
import { driverError, type HostMessage, type WorkerInit, type WorkerMessage } from './pglite-protocol.ts';
import { pgliteWasm } from './pglite-wasm.ts';

/** What opening the data directory cost the worker's thread, ms (Linux only). */
export interface OpenCost {
  cpuMs: number;
  /** Time the thread was ready to run but waited for a CPU (a busy machine). */
  runqMs: number;
}

/** A worker that has not opened the database yet. */
export interface Spare {
  worker: Worker;
  /** Settles once the worker has opened the database after `activate`, or failed to. */
  opened: Promise<OpenCost | undefined>;
}

/** What the host hears from a worker once it has opened the database. */
export interface SpareEvents {
  /** A statement's answer or a notification. */
  onMessage(worker: Worker, m: Exclude<WorkerMessage, { standing: true } | { ready: true } | { failed: unknown }>): void;
  /** The worker died after opening (an error or an exit the host did not ask for). */
  onDeath(worker: Worker, err: unknown): void;
}

/** Starts a spare worker; see the file comment. */
export async function prepareSpare(dataDir: string, schema: string, events: SpareEvents): Promise<Spare> {
  const init: WorkerInit = { dataDir, schema, wasmModule: await pgliteWasm() };
  // Plain JavaScript (see the worker's comment); no execArgv of the main thread (e.g. --test).
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: init, execArgv: [] });
  let isOpen = false;
  const opened = new Promise<OpenCost | undefined>((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if ('standing' in m) return;
      if ('ready' in m) {
        isOpen = true;
        resolve(m.cpuMs === undefined || m.runqMs === undefined ? undefined : { cpuMs: m.cpuMs, runqMs: m.runqMs });
      } else if ('failed' in m) {
        reject(driverError(m.failed));
      } else {
        events.onMessage(worker, m);
      }
    });
    // A worker that dies after opening is replaced; one that cannot open is not retried in a
    // loop: the next statement tries again.
    worker.on('error', (err) => {
      reject(err);
      if (isOpen) events.onDeath(worker, err);
    });
    worker.on('exit', () => {
      reject(new Error('the embedded engine stopped'));
      if (isOpen) events.onDeath(worker, new Error('the embedded engine stopped'));
    });
  });
  // A failed start is reported to whoever activates the spare; never an unhandled rejection.
  opened.catch(() => {});
  return { worker, opened };
}

/** Lets a spare open the database; resolves when it has, with what that cost its thread. */
export async function activateSpare(spare: Spare): Promise<OpenCost | undefined> {
  spare.worker.postMessage({ id: 0, op: 'activate' } satisfies HostMessage);
  return spare.opened;
}
