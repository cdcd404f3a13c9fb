/**
 * The stored scheduled functions and their run log (migration 7): create, change, delete,
 * list, and the runs of one schedule. Master key only (the admin endpoint and `larder
 * schedule`). The runner (schedule-runner.ts) claims ticks from the same table.
 */
import { randomToken } from '../auth/app-keys.ts';
import { ApiError } from '../errors/api-error.ts';
import { toIso } from '../objects/timestamps.ts';
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { nextTick, parseScheduleSpec, type ScheduleSpec } from './schedule-spec.ts';

/** A schedule as the API shows it. */
export interface ScheduleView {
  readonly objectId: string;
  readonly function: string;
  readonly cron: string;
  readonly timezone: string;
  readonly params: Record<string, unknown>;
  readonly production: boolean;
  readonly enabled: boolean;
  readonly nextRunAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** One run of a schedule. */
export interface RunView {
  readonly tick: string;
  readonly status: 'running' | 'ok' | 'error';
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
  readonly error: string | null;
}

interface ScheduleRow {
  id: string;
  function_name: string;
  params: Record<string, unknown>;
  cron: string;
  timezone: string;
  production: boolean;
  enabled: boolean;
  next_run_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

/** Most runs listed at once; older runs than the newest RUNS_KEPT of a schedule are deleted. */
export const MAX_RUNS_LISTED = 100;
export const RUNS_KEPT = 100;

function view(r: ScheduleRow): ScheduleView {
  return {
    objectId: r.id,
    function: r.function_name,
    cron: r.cron,
    timezone: r.timezone,
    params: r.params,
    production: r.production,
    enabled: r.enabled,
    nextRunAt: r.next_run_at === null ? null : toIso(r.next_run_at),
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
  };
}

function specOf(r: ScheduleRow): ScheduleSpec {
  return { functionName: r.function_name, cron: r.cron, timezone: r.timezone, params: r.params, production: r.production, enabled: r.enabled };
}

async function row(db: Queryable, id: string): Promise<ScheduleRow> {
  const rows = await db.query<ScheduleRow>(sql`SELECT * FROM _larder_schedules WHERE id = ${id}`);
  if (!rows[0]) throw new ApiError('scheduleNotFound', `Scheduled function not found: ${id.slice(0, 40)}`);
  return rows[0];
}

/** Lists every schedule, oldest first. */
export async function listSchedules(db: Queryable): Promise<ScheduleView[]> {
  return (await db.query<ScheduleRow>(sql`SELECT * FROM _larder_schedules ORDER BY created_at, id`)).map(view);
}

/** One schedule. */
export async function getSchedule(db: Queryable, id: string): Promise<ScheduleView> {
  return view(await row(db, id));
}

/** Creates a schedule from `{function, cron, params?, production?, timezone?, enabled?}`. */
export async function createSchedule(db: Queryable, body: unknown, now = new Date()): Promise<ScheduleView> {
  const s = parseScheduleSpec(body);
  const next = s.enabled ? nextTick(s.cron, s.timezone, now).toISOString() : null;
  const rows = await db.query<ScheduleRow>(sql`INSERT INTO _larder_schedules
    (id, function_name, params, cron, timezone, production, enabled, next_run_at, created_at, updated_at)
    VALUES (${randomToken(16)}, ${s.functionName}, ${JSON.stringify(s.params)}::jsonb, ${s.cron}, ${s.timezone}, ${s.production},
      ${s.enabled}, ${next}::timestamptz, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
    RETURNING *`);
  return view(rows[0]);
}

/** Changes some of a schedule's settings; the next tick is computed again from now. */
export async function changeSchedule(db: Queryable, id: string, body: unknown, now = new Date()): Promise<ScheduleView> {
  const s = parseScheduleSpec(body, specOf(await row(db, id)));
  const next = s.enabled ? nextTick(s.cron, s.timezone, now).toISOString() : null;
  const rows = await db.query<ScheduleRow>(sql`UPDATE _larder_schedules SET function_name = ${s.functionName},
      params = ${JSON.stringify(s.params)}::jsonb, cron = ${s.cron}, timezone = ${s.timezone}, production = ${s.production},
      enabled = ${s.enabled}, next_run_at = ${next}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
    WHERE id = ${id} RETURNING *`);
  if (!rows[0]) throw new ApiError('scheduleNotFound');
  return view(rows[0]);
}

/** Deletes a schedule and its run log. */
export async function deleteSchedule(db: Queryable, id: string): Promise<void> {
  const rows = await db.query(sql`DELETE FROM _larder_schedules WHERE id = ${id} RETURNING id`);
  if (!rows.length) throw new ApiError('scheduleNotFound', `Scheduled function not found: ${id.slice(0, 40)}`);
  await db.query(sql`DELETE FROM _larder_schedule_runs WHERE schedule_id = ${id}`);
}

/** The newest runs of a schedule, newest first. */
export async function scheduleRuns(db: Queryable, id: string, limit = MAX_RUNS_LISTED): Promise<RunView[]> {
  await row(db, id);
  const n = Math.max(1, Math.min(limit, MAX_RUNS_LISTED));
  const rows = await db.query<{ tick: unknown; status: RunView['status']; started_at: unknown; finished_at: unknown; duration_ms: number | null; error: string | null }>(
    sql`SELECT tick, status, started_at, finished_at, duration_ms, error FROM _larder_schedule_runs
      WHERE schedule_id = ${id} ORDER BY tick DESC LIMIT ${n}`,
  );
  return rows.map((r) => ({
    tick: toIso(r.tick),
    status: r.status,
    startedAt: toIso(r.started_at),
    finishedAt: r.finished_at === null ? null : toIso(r.finished_at),
    durationMs: r.duration_ms,
    error: r.error,
  }));
}
