/**
 * Runs scheduled cloud functions, exactly once per tick across every Larder process on the
 * database. Each process polls for due schedules; a tick is claimed by moving the schedule's
 * `next_run_at` forward with a compare-and-set (only one UPDATE matches the old value), and the
 * run row's unique (schedule_id, tick) backs that up. Ticks missed while no process was running
 * are not replayed one by one: the next poll runs the schedule once and moves on to the next
 * tick after now (as a cron daemon that was down does).
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.ts';
import { toIso } from '../objects/timestamps.ts';
import { sql } from '../sql/fragment.ts';
import type { CloudCode } from './cloud-code.ts';
import { engineHeaders } from './engine-headers.ts';
import { nextTick } from './schedule-spec.ts';
import { RUNS_KEPT } from './schedules.ts';

type RunnerApp = Pick<AppContext, 'keys' | 'db'>;

interface DueRow {
  id: string;
  function_name: string;
  params: Record<string, unknown>;
  cron: string;
  timezone: string;
  production: boolean;
  next_run_at: unknown;
}

/** How often a process looks for due schedules, ms. */
export const POLL_MS = 1000;
/** Longest error text kept in the run log. */
const MAX_ERROR = 2000;
/** Largest function answer read (only its status and error matter). */
const MAX_ANSWER = 1024 * 1024;

/** The scheduler of one process. */
export class ScheduleRunner {
  readonly #app: RunnerApp;
  readonly #cloud: CloudCode;
  readonly #runner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(app: RunnerApp, cloud: CloudCode) {
    this.#app = app;
    this.#cloud = cloud;
  }

  /** Starts polling. */
  start(pollMs = POLL_MS): void {
    this.#timer = setInterval(() => void this.poll(), pollMs);
    this.#timer.unref();
  }

  /** Stops polling and waits for the runs in flight. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([...this.#running]);
  }

  /** Claims every due tick and starts its run; returns how many this process claimed. */
  async poll(now = new Date()): Promise<number> {
    if (this.#polling) return 0;
    this.#polling = true;
    try {
      const due = await this.#app.db.query<DueRow>(sql`SELECT id, function_name, params, cron, timezone, production, next_run_at
        FROM _larder_schedules WHERE enabled AND next_run_at <= ${now.toISOString()}::timestamptz ORDER BY next_run_at LIMIT 100`);
      let claimed = 0;
      for (const s of due) {
        const tick = toIso(s.next_run_at);
        if (!(await this.#claim(s, tick, now))) continue;
        claimed++;
        const run = this.#run(s, tick).finally(() => this.#running.delete(run));
        this.#running.add(run);
      }
      return claimed;
    } catch (err) {
      this.#cloud.logger.warn({ reason: (err as Error).message }, 'scheduled functions: poll failed');
      return 0;
    } finally {
      this.#polling = false;
    }
  }

  async #claim(s: DueRow, tick: string, now: Date): Promise<boolean> {
    let next: string | null;
    try {
      next = nextTick(s.cron, s.timezone, now).toISOString();
    } catch {
      next = null; // an expression that no longer fires (e.g. a removed time zone) stops
    }
    const moved = await this.#app.db.query(sql`UPDATE _larder_schedules SET next_run_at = ${next}::timestamptz
      WHERE id = ${s.id} AND enabled AND next_run_at = ${tick}::timestamptz RETURNING id`);
    if (!moved.length) return false;
    const inserted = await this.#app.db.query(sql`INSERT INTO _larder_schedule_runs (schedule_id, tick, status, started_at, runner)
      VALUES (${s.id}, ${tick}::timestamptz, 'running', ${new Date().toISOString()}::timestamptz, ${this.#runner})
      ON CONFLICT (schedule_id, tick) DO NOTHING RETURNING id`);
    return inserted.length > 0;
  }

  async #run(s: DueRow, tick: string): Promise<void> {
    const started = Date.now();
    let error: string | null = null;
    try {
      const payload = Buffer.from(JSON.stringify(s.params ?? {}));
      const answer = await this.#cloud.engine(s.production).call(
        {
          method: 'POST',
          path: `/1.1/functions/${encodeURIComponent(s.function_name)}`,
          headers: engineHeaders(this.#app.keys, s.production, payload.length),
          body: payload,
          timeoutMs: this.#cloud.options.functionTimeoutMs,
        },
        MAX_ANSWER,
      );
      if (answer.status < 200 || answer.status >= 300) error = errorOf(answer.status, answer.text);
    } catch (err) {
      error = `engine: ${(err as Error).message}`;
    }
    const finished = new Date();
    try {
      await this.#app.db.query(sql`UPDATE _larder_schedule_runs SET status = ${error === null ? 'ok' : 'error'},
          finished_at = ${finished.toISOString()}::timestamptz, duration_ms = ${finished.getTime() - started}, error = ${error}
        WHERE schedule_id = ${s.id} AND tick = ${tick}::timestamptz`);
      await this.#app.db.query(sql`DELETE FROM _larder_schedule_runs WHERE schedule_id = ${s.id} AND id NOT IN (
        SELECT id FROM _larder_schedule_runs WHERE schedule_id = ${s.id} ORDER BY tick DESC LIMIT ${RUNS_KEPT})`);
    } catch (err) {
      this.#cloud.logger.warn({ schedule: s.id, reason: (err as Error).message }, 'scheduled functions: could not record a run');
    }
    if (error !== null) this.#cloud.logger.warn({ schedule: s.id, function: s.function_name, error }, 'scheduled function failed');
  }
}

function errorOf(status: number, text: string): string {
  let message = `HTTP ${status}`;
  try {
    const body = JSON.parse(text) as { code?: unknown; error?: unknown };
    if (typeof body.error === 'string') message = `HTTP ${status}, code ${String(body.code)}: ${body.error}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return message.slice(0, MAX_ERROR);
}
