/** Messages between the embedded engine's host (main thread) and its worker thread. */

/** What the worker is started with. */
export interface WorkerInit {
  /** PGlite data directory (a real directory: a cancelled worker's data must survive it). */
  dataDir: string;
  schema: string;
  /** PGlite's WebAssembly module, compiled once per process and shared by every restart. */
  wasmModule: WebAssembly.Module;
}

/** Host -> worker: one operation with an id the answer repeats. */
export type HostMessage =
  | { id: number; op: 'activate' }
  | { id: number; op: 'query'; text: string; values: unknown[]; prepared?: boolean }
  | { id: number; op: 'exec'; text: string }
  | { id: number; op: 'listen'; channel: string }
  | { id: number; op: 'close' };

/** A driver error as plain data: message plus SQLSTATE (`code`), constraint, detail... */
export type WorkerError = { message: string } & Record<string, string | number>;

/** Worker -> host. */
export type WorkerMessage =
  | { standing: true }
  /** Opened; `cpuMs`/`runqMs`: this thread's CPU time and CPU queueing since `activate` (Linux). */
  | { ready: true; cpuMs?: number; runqMs?: number }
  | { failed: WorkerError }
  | { id: number; rows: Record<string, unknown>[] }
  | { id: number; error: WorkerError }
  | { notify: string; payload: string };

/** Rebuilds a driver error sent by the worker, so translateDriverError sees its SQLSTATE. */
export function driverError(e: WorkerError): Error {
  return Object.assign(new Error(e.message), e);
}
