/**
 * The app's connection to its LeanEngine app (`app.cloud`): the engine clients (production and
 * staging), the shared hook list, and the calls Larder makes to the engine. Larder never runs
 * user code itself (design.md, revisions): everything here is HTTP to the engine.
 */
import type { AppContext } from '../app-context.ts';
import { classHooks } from './class-hooks.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Logger } from '../log.ts';
import type { CloudOptions } from './cloud-options.ts';
import { EngineClient } from './engine-client.ts';
import { EngineCallError } from './engine-call-error.ts';
import { engineHeaders } from './engine-headers.ts';
import { hookOutcome, type HookOutcome } from './hook-answer.ts';
import { HookList, parseMetadatas } from './hook-list.ts';
import { ScheduleRunner } from './schedule-runner.ts';

/** What CloudCode needs of the app: its keys and database. */
type CloudApp = Pick<AppContext, 'keys' | 'db'>;

/** Largest hook answer read, bytes (an object and its fields; far below any body limit). */
const MAX_HOOK_ANSWER = 16 * 1024 * 1024;

/** Counters of what went wrong in calls the client never waits for (logs and /metrics). */
export interface CloudCounters {
  afterHookFailures: number;
  refreshFailures: number;
}

/** The client's error for a call that got no usable answer. */
export function engineFailure(err: unknown, what: 'hook' | 'function'): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof EngineCallError) {
    if (err.kind === 'timeout') return what === 'hook' ? new ApiError('hookTimeout') : new ApiError('timeout', 'The request timed out on the server.');
    if (err.kind === 'too-large') return new ApiError('engineAnswerTooLarge');
  }
  return new ApiError('engineUnreachable');
}

/** Cloud code of one app: engine clients, hook list, hook calls. */
export class CloudCode {
  readonly options: CloudOptions;
  readonly hooks = new HookList();
  readonly counters: CloudCounters = { afterHookFailures: 0, refreshFailures: 0 };
  readonly logger: Logger;
  readonly #production: EngineClient;
  readonly #staging: EngineClient;
  #timer: NodeJS.Timeout | undefined;
  #runner: ScheduleRunner | undefined;

  constructor(options: CloudOptions, logger: Logger) {
    this.options = options;
    this.logger = logger;
    this.#production = new EngineClient(options.engineUrl);
    this.#staging = options.stagingUrl ? new EngineClient(options.stagingUrl) : this.#production;
  }

  /** The engine a request goes to: X-LC-Prod: 0 means staging (production when none is set). */
  engine(production: boolean): EngineClient {
    return production ? this.#production : this.#staging;
  }

  /**
   * Calls one hook (`path` like /1.1/functions/Review/beforeSave) with a JSON body. Resolves with
   * its outcome; throws the client's error (141 timeout, 142 refusal, engine down...).
   */
  async callHook(app: CloudApp, path: string, body: unknown, opts: { timeoutMs: number; production: boolean }): Promise<HookOutcome> {
    const payload = Buffer.from(JSON.stringify(body));
    try {
      const answer = await this.engine(opts.production).call(
        { method: 'POST', path, headers: engineHeaders(app.keys, opts.production, payload.length), body: payload, timeoutMs: opts.timeoutMs },
        MAX_HOOK_ANSWER,
      );
      return hookOutcome(answer);
    } catch (err) {
      throw engineFailure(err, 'hook');
    }
  }

  /** Reads the engine's function and hook list and shares it with every process. */
  async refresh(app: CloudApp): Promise<readonly string[]> {
    let answer;
    try {
      answer = await this.#production.call(
        { method: 'GET', path: '/1.1/functions/_ops/metadatas', headers: engineHeaders(app.keys, true), timeoutMs: this.options.hookTimeoutMs },
        MAX_HOOK_ANSWER,
      );
    } catch (err) {
      throw engineFailure(err, 'hook');
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    if (answer.status === 401) throw new ApiError('hookKeyRejected', "The cloud code engine refused Larder's master key: its LEANCLOUD_APP_ID and LEANCLOUD_APP_MASTER_KEY must be this app's.");
    const names = answer.status === 200 ? parseMetadatas(body) : undefined;
    if (!names) throw new ApiError('engineBadAnswer', `The cloud code engine answered GET /1.1/functions/_ops/metadatas with HTTP ${answer.status} and no {"result": [names]}.`);
    await this.hooks.store(app.db, names);
    return names;
  }

  /**
   * Starts the scheduler, loads the stored list, listens for other processes' refreshes, reads
   * the engine once (a failure is logged: the engine may start after Larder) and then every
   * `refreshSeconds`.
   */
  async start(app: AppContext): Promise<void> {
    // Class hooks and onLogin attach once to the write pipeline; a new hook list changes which
    // writes they are interested in.
    app.writes.register(classHooks(app, this));
    this.hooks.onChange(() => app.writes.changed());
    this.#runner = new ScheduleRunner(app, this);
    this.#runner.start();
    await this.hooks.load(app.db);
    // Released with the app (on PostgreSQL a connection of its own).
    app.scope.onClose(await this.hooks.listen(app.db));
    await this.#refreshLogged(app);
    if (this.options.refreshSeconds > 0) {
      // Jitter: several processes started together do not all ask at the same moment.
      const period = this.options.refreshSeconds * 1000;
      this.#timer = setInterval(() => void this.#refreshLogged(app), period + Math.floor(Math.random() * Math.min(period / 10, 5000)));
      this.#timer.unref();
    }
  }

  async #refreshLogged(app: CloudApp): Promise<void> {
    try {
      await this.refresh(app);
    } catch (err) {
      this.counters.refreshFailures++;
      this.logger.warn({ engine: this.#production.url, reason: (err as Error).message }, 'cloud code: could not read the engine hook list; using the stored one');
    }
  }

  /** The scheduler of this process (started with the app). */
  get scheduler(): ScheduleRunner | undefined {
    return this.#runner;
  }

  /** Stops the refresh timer and the scheduler, and closes idle sockets. */
  async close(): Promise<void> {
    await this.#runner?.stop();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#production.close();
    this.#staging.close();
  }
}
