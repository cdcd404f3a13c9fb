/**
 * Runs the real command line (`node --import tsx src/main.ts ...`) as a child process, for tests
 * of start-up, signals and commands. The child's environment is this one without any Larder
 * setting, so a developer's own LARDER_* variables never leak into a test.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** The repository root: the working directory of every child. */
export const ROOT = new URL('../../../', import.meta.url).pathname;

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The environment of a child: this one without any Larder setting, plus `extra`. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LARDER_') && k !== 'DATABASE_URL') env[k] = v;
  return { ...env, LARDER_LOG_LEVEL: 'warn', ...extra };
}

/** A running (or finished) Larder process with its output so far. */
export interface Larder {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in stdout; rejects if the process exits first. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has exited. */
  exited(timeoutMs?: number): Promise<number | null>;
}

/** Starts `larder <args>` (the real CLI through tsx) with `env` on top of a clean environment. */
export function larder(args: string[], env: Record<string, string>): Larder {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: childEnv(env), stdio: 'pipe' });
  let out = '';
  let err = '';
  let code: number | null | undefined;
  const listeners = new Set<() => void>();
  const poke = () => listeners.forEach((l) => l());
  child.stdout?.on('data', (d) => ((out += d), poke()));
  child.stderr?.on('data', (d) => ((err += d), poke()));
  child.on('exit', (c, signal) => ((code = c ?? (signal ? -1 : null)), poke()));
  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const tick = () => {
        const v = check();
        if (v !== undefined) return done(() => resolve(v));
        if (code !== undefined) done(() => reject(new Error(`larder exited (${code}) before ${what}\nstdout:\n${out}\nstderr:\n${err}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${what}\nstdout:\n${out}\nstderr:\n${err}`))), timeoutMs);
      const done = (f: () => void) => (clearTimeout(timer), listeners.delete(tick), f());
      listeners.add(tick);
      tick();
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (re, timeoutMs = 120_000) => until(() => out.match(re) ?? undefined, timeoutMs, String(re)),
    exited: (timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`larder did not exit in ${timeoutMs} ms\n${out}\n${err}`)), timeoutMs);
        const tick = () => {
          if (code === undefined) return;
          clearTimeout(timer);
          listeners.delete(tick);
          resolve(code);
        };
        listeners.add(tick);
        tick();
      }),
  };
}

/** Kills a child this test started if it is still running (cleanup after a failed assertion). */
export function stop(l: Larder): void {
  if (l.child.exitCode === null && l.child.signalCode === null) l.child.kill('SIGKILL');
}

/** GET a URL on a fresh connection; the status and the parsed JSON body. */
export async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers: { connection: 'close' } });
  return { status: res.status, body: await res.json() };
}

/**
 * Waits until `/health` answers 200 (start-up may be slow on a busy machine). Given the server's
 * process, fails at once if it exits, and a failure carries its output and the last answer.
 */
export async function waitForHealth(base: string, server?: Larder, timeoutMs = 120_000): Promise<void> {
  const output = () => (server ? `\nstdout:\n${server.stdout()}\nstderr:\n${server.stderr()}` : '');
  const deadline = Date.now() + timeoutMs;
  let last = 'none';
  while (Date.now() < deadline) {
    const exited = server && (server.child.exitCode ?? server.child.signalCode);
    if (exited !== undefined && exited !== null) throw new Error(`larder exited (${exited}) before ${base}/health answered 200${output()}`);
    try {
      // A connection that is accepted but never answered must not use up the whole wait.
      const res = await fetch(`${base}/health`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) });
      last = `status ${res.status}: ${(await res.text()).slice(0, 200)}`;
      if (res.status === 200) return;
    } catch (err) {
      last = String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message); // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base}/health never answered 200 in ${timeoutMs} ms (last answer: ${last})${output()}`);
}

/** Starts a server (`larder` with no command) on a free port with `env` and waits until it is healthy. */
export async function startServer(env: Record<string, string>): Promise<{ proc: Larder; base: string }> {
  const port = await freePort();
  const proc = larder([], { ...env, LARDER_PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base);
  return { proc, base };
}

/** Runs `larder <args>` to completion: exit status and output. */
export function runLarder(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: childEnv(env), encoding: 'utf8' });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/**
 * Runs `node bin/larder.js <args>` (the command users run, from sources) without blocking this
 * process, so that servers the command talks to may run in this process.
 */
export function runBin(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/larder.js', ...args], { cwd: ROOT, env: childEnv({ LARDER_RUN_SOURCES: '1', ...env }), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Drops PostgreSQL schemas that commands run by a test wrote into (TEST_DATABASE_URL), for an
 * `after` hook: runs whose own cleanup did not happen (a failed assertion) leave nothing behind.
 */
export async function dropTestSchemas(schemas: readonly string[]): Promise<void> {
  if (!schemas.length || !process.env.TEST_DATABASE_URL) return;
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await c.connect();
  try {
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await c.end();
  }
}
