/**
 * `--engine <dir>` / LARDER_ENGINE_DIR: Larder starts the app's LeanEngine code itself
 * (`npm start` in that directory, as LeanEngine did) with the LEANCLOUD_* environment the engine
 * SDKs read, prefixes its output lines with `[engine]`, and starts it again when it exits, with
 * a growing pause (1 s, 2 s, 4 s ... 30 s; back to 1 s once it stayed up a minute), so that a
 * whole app runs from one command. Once the engine answers its ping, `onReady` runs (Larder
 * reads the hook list then).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from '../log.ts';

/** What the supervisor needs. */
export interface SupervisorOptions {
  readonly dir: string;
  /** The port the engine listens on (LEANCLOUD_APP_PORT). */
  readonly port: number;
  /** The LEANCLOUD_* variables (keys, API server); added to Larder's own environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly logger: Logger;
  /** Where prefixed output lines go (stdout of Larder by default). */
  readonly print?: (line: string) => void;
  /** Called each time a (re)started engine first answers its ping. */
  readonly onReady?: () => void;
}

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const STABLE_MS = 60_000;
const STOP_GRACE_MS = 5000;

/** The LEANCLOUD_* environment of an engine app serving this Larder. */
export function leancloudEnv(keys: { appId: string; appKey: string; masterKey: string; hookKey: string }, apiServer: string, port: number): Record<string, string> {
  return {
    LEANCLOUD_APP_ID: keys.appId,
    LEANCLOUD_APP_KEY: keys.appKey,
    LEANCLOUD_APP_MASTER_KEY: keys.masterKey,
    LEANCLOUD_APP_HOOK_KEY: keys.hookKey,
    LEANCLOUD_API_SERVER: apiServer,
    LEANCLOUD_APP_PORT: String(port),
    LEANCLOUD_APP_ENV: 'production',
  };
}

/** A supervised engine process. */
export class EngineSupervisor {
  readonly #opts: SupervisorOptions;
  #child: ChildProcess | undefined;
  #stopping = false;
  #backoff = MIN_BACKOFF_MS;
  #timer: NodeJS.Timeout | undefined;
  #restarts = 0;

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
  }

  /** How many times the engine was started again after exiting. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Starts the engine. */
  start(): void {
    const { dir, env, port, logger } = this.#opts;
    const startedAt = Date.now();
    // Its own process group: stopping ends npm and the node process it started, nothing else.
    const child = spawn('npm', ['start'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.#child = child;
    this.#pipe(child.stdout);
    this.#pipe(child.stderr);
    logger.info({ dir, port, pid: child.pid }, 'engine: started');
    void this.#waitReady(child);
    child.on('error', (err) => logger.error({ reason: err.message }, 'engine: could not start npm'));
    child.on('exit', (code, signal) => {
      if (this.#child === child) this.#child = undefined;
      if (this.#stopping) return;
      if (Date.now() - startedAt > STABLE_MS) this.#backoff = MIN_BACKOFF_MS;
      logger.error({ exitCode: code, signal, restartInMs: this.#backoff }, 'engine: exited; starting it again'); // not `code`: redacted as a secret
      this.#timer = setTimeout(() => {
        this.#restarts++;
        this.start();
      }, this.#backoff);
      this.#timer.unref();
      this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    });
  }

  #pipe(stream: Readable | null): void {
    if (!stream) return;
    const print = this.#opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
    createInterface({ input: stream }).on('line', (line) => print(`[engine] ${line}`));
  }

  async #waitReady(child: ChildProcess): Promise<void> {
    const url = `http://127.0.0.1:${this.#opts.port}/__engine/1/ping`;
    while (this.#child === child && !this.#stopping) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        await res.body?.cancel();
        if (res.ok) {
          this.#opts.logger.info({ port: this.#opts.port }, 'engine: ready');
          this.#opts.onReady?.();
          return;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Stops the engine (SIGTERM to its process group, SIGKILL after a grace period). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const pid = child.pid;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}
