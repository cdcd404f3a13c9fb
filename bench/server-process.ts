import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The repository root: the server and the CLI run from here with `node --import tsx src/main.ts`. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Fixed app keys, given through the environment so the load generator can sign without a handshake. */
export const BENCH_KEYS = {
  appId: 'benchAppId0000000000000-larder',
  appKey: 'benchAppKey0000000000000',
  masterKey: 'benchMasterKey0000000000',
} as const;

/** Where a server keeps its data: a PostgreSQL URL + schema, or a PGlite directory. */
export type ServerStorage = { kind: 'postgres'; url: string; schema: string } | { kind: 'pglite'; dataDir: string };

/** A Larder server started as a child process. */
export interface ServerProcess {
  readonly url: string;
  /** The process we spawned (the cluster primary when there are several workers). */
  readonly pid: number;
  /** Processes that serve requests: the cluster workers, or the single process itself. */
  workerPids(): number[];
  /** Everything the server wrote, for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after a grace period; also kills any worker left behind. */
  stop(): Promise<void>;
}

/**
 * Per-client rate limits on, and set so high that the load generator is never refused: what a
 * server on the default settings spends counting each call, without the 429s (`--rate-limits`).
 */
export const COUNTING_LIMITS: Readonly<Record<string, string>> = Object.freeze({ LARDER_RATE_LIMIT_PER_IP: '100000000', LARDER_RATE_LIMIT_PER_SESSION: '100000000' });

/** The environment for the server and the CLI: fixed keys, quiet logs, the storage to use. */
export function serverEnv(storage: ServerStorage, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Settings inherited from the caller's shell must not change what is measured.
  for (const k of Object.keys(env)) if (k.startsWith('LARDER_') || k === 'DATABASE_URL') delete env[k];
  Object.assign(env, {
    LARDER_APP_ID: BENCH_KEYS.appId,
    LARDER_APP_KEY: BENCH_KEYS.appKey,
    LARDER_MASTER_KEY: BENCH_KEYS.masterKey,
    LARDER_LOG_LEVEL: 'warn',
    LARDER_HOST: '127.0.0.1',
    // The load generator is one client address sending thousands of requests a second: the
    // per-client rate limits (docs/security.md) would measure themselves, not the server.
    LARDER_RATE_LIMIT_PER_IP: '0',
    LARDER_RATE_LIMIT_PER_SESSION: '0',
  });
  if (storage.kind === 'postgres') Object.assign(env, { DATABASE_URL: storage.url, LARDER_DB_SCHEMA: storage.schema });
  else env.LARDER_DATA_DIR = storage.dataDir;
  return Object.assign(env, extra);
}

/** BENCH_PORTS=<first>-<last>: the ports benches may give their servers (a session's own range on a shared machine); else any free one. */
const PORT_RANGE = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
let nextInRange = PORT_RANGE ? Number(PORT_RANGE[1]) : 0;

/** A port of BENCH_PORTS that was free a moment ago, taking them in turn (a port just given out is not given again at once). */
async function freePortInRange(first: number, last: number): Promise<number> {
  for (let tries = 0; tries <= last - first; tries++) {
    const port = nextInRange;
    nextInRange = port >= last ? first : port + 1;
    if (await listenable(port)) return port;
  }
  throw new Error(`no free port in BENCH_PORTS ${first}-${last}`);
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A TCP port that was free a moment ago on the loopback interface. */
export function freePort(): Promise<number> {
  if (PORT_RANGE) return freePortInRange(Number(PORT_RANGE[1]), Number(PORT_RANGE[2]));
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Direct children of a process, from /proc (the cluster workers of a Larder primary). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 is the parent pid; the command name (field 2) may contain spaces, so split after ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitHealthy(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Larder exited (${child.exitCode ?? child.signalCode}) before it was healthy:\n${output()}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Larder was not healthy after ${timeoutMs / 1000} s (${last}):\n${output()}`);
}

/** Options of startServer. */
export interface StartOptions {
  /** Extra node flags, e.g. ['--cpu-prof'] when profiling the server by hand (NODE_OPTIONS refuses it). */
  nodeArgs?: readonly string[];
  /** Called as soon as the process exists, so an interrupted start-up can still stop it. */
  onSpawn?: (server: ServerProcess) => void;
  /** Another checkout to run the server from (A/B comparisons, bench/cpu-cost.ts); default REPO_ROOT. */
  root?: string;
  /** Extra settings for the server's environment (e.g. LARDER_FILE_MAX_BYTES). */
  env?: Record<string, string>;
}

/**
 * Starts `node bin/larder.js serve --workers <n>` and waits until /health answers 200. bin/larder.js
 * runs the compiled code when `npm run build` made it and it is not older than the sources (what
 * production runs: docs/running.md), else the sources through tsx, whose helpers cost a few
 * per cent of the CPU on hot paths; LARDER_RUN_SOURCES=1 forces the sources.
 */
export async function startServer(storage: ServerStorage, workers: number, opts: StartOptions = {}): Promise<ServerProcess> {
  // BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the server of any bench.
  const nodeArgs = opts.nodeArgs ?? (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeArgs, 'bin/larder.js', 'serve', '--workers', String(workers)], {
    cwd: opts.root ?? REPO_ROOT,
    env: serverEnv(storage, { ...opts.env, LARDER_PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  if (child.pid === undefined) throw new Error('could not spawn the Larder server');
  const pid = child.pid;
  // Remembered while running, so stop() can reach workers even after the primary is gone.
  const seen = new Set<number>();
  const workerPids = () => {
    const kids = workers > 1 ? childPids(pid) : [pid];
    kids.forEach((k) => seen.add(k));
    return kids;
  };
  const server: ServerProcess = {
    url,
    pid,
    workerPids,
    output: () => log,
    async stop() {
      workerPids();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        if (!(await waitExit(child, 10_000))) {
          child.kill('SIGKILL');
          await waitExit(child, 5000);
        }
      }
      for (const w of seen) if (w !== pid && alive(w)) process.kill(w, 'SIGKILL');
    },
  };
  opts.onSpawn?.(server);
  try {
    await waitHealthy(url, child, () => log, 90_000);
    if (workers > 1) await waitForWorkers(server, workers);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

async function waitForWorkers(server: ServerProcess, workers: number): Promise<void> {
  // /health answers as soon as the first worker listens; measure only once all of them do.
  const deadline = Date.now() + 60_000;
  while (server.workerPids().length < workers && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 2000));
}

/** Runs one Larder CLI command (e.g. `index add Bench score`) with the server's environment. */
export function runCli(storage: ServerStorage, args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: serverEnv(storage),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}
