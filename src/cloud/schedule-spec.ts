/**
 * What a scheduled cloud function is (LeanCloud's "定时任务"): a function name, a cron
 * expression, params, and the environment it runs in. Cron expressions are parsed by the
 * `cron-parser` library: 5 fields (minute first) or 6 fields (second first, as LeanCloud's
 * console wrote them, `?` accepted), evaluated in an IANA time zone (UTC by default).
 */
import { createRequire } from 'node:module';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** A schedule as given by the operator, checked. */
export interface ScheduleSpec {
  readonly functionName: string;
  readonly cron: string;
  readonly timezone: string;
  readonly params: Record<string, unknown>;
  readonly production: boolean;
  readonly enabled: boolean;
}

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
const MAX_CRON = 200;
const MAX_PARAMS_BYTES = 64 * 1024;
const KEYS = new Set(['function', 'cron', 'timezone', 'params', 'production', 'enabled']);

/**
 * cron-parser (with Luxon, 1.4 MB of heap) is loaded by the first cron expression read, not at
 * start-up: a server without schedules never needs it, and every process pays for its heap on
 * every request (docs/benchmarks.md, "Cloud code"). It is a CommonJS package, so `require` loads
 * the same module an import would, and callers stay synchronous.
 */
let cronParser: typeof import('cron-parser').CronExpressionParser | undefined;
function loadCronParser(): typeof import('cron-parser').CronExpressionParser {
  cronParser ??= (createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser')).CronExpressionParser;
  return cronParser;
}

function bad(message: string): ApiError {
  return new ApiError('invalidSchedule', `Invalid scheduled function: ${message}`);
}

/** The tick after `after` (exclusive); throws 'invalidSchedule' for an expression that never fires. */
export function nextTick(cron: string, timezone: string, after: Date): Date {
  const parser = loadCronParser();
  let expr;
  try {
    expr = parser.parse(cron, { currentDate: after, tz: timezone });
  } catch (err) {
    throw bad(`cron expression '${cron}': ${(err as Error).message}`);
  }
  try {
    return expr.next().toDate();
  } catch {
    throw bad(`cron expression '${cron}' never fires.`);
  }
}

function checkTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw bad(`unknown time zone '${tz}' (use an IANA name such as Asia/Shanghai).`);
  }
}

/**
 * Checks a create (`current` absent) or a change (merged onto `current`) of a schedule:
 * `{function, cron, params?, production?, timezone?, enabled?}`.
 */
export function parseScheduleSpec(body: unknown, current?: ScheduleSpec): ScheduleSpec {
  if (!isPlainObject(body)) throw bad('expected a JSON object {function, cron, params?, production?, timezone?, enabled?}.');
  for (const k of Object.keys(body)) if (!KEYS.has(k)) throw bad(`unknown key '${k.slice(0, 50)}'.`);
  const fn = body.function ?? current?.functionName;
  if (typeof fn !== 'string' || !FUNCTION_NAME.test(fn)) throw bad("'function' must be a cloud function name (letters, digits, _ . -).");
  const cron = body.cron ?? current?.cron;
  if (typeof cron !== 'string' || cron.trim() === '' || cron.length > MAX_CRON) throw bad("'cron' must be a cron expression (5 or 6 fields).");
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) throw bad(`'cron' must have 5 fields (minute first) or 6 (second first), not ${fields}.`);
  const timezone = body.timezone ?? current?.timezone ?? 'UTC';
  if (typeof timezone !== 'string' || timezone.length > 64) throw bad("'timezone' must be an IANA time zone name.");
  checkTimezone(timezone);
  const params = body.params ?? current?.params ?? {};
  if (!isPlainObject(params)) throw bad("'params' must be a JSON object.");
  if (Buffer.byteLength(JSON.stringify(params)) > MAX_PARAMS_BYTES) throw bad(`'params' is larger than ${MAX_PARAMS_BYTES} bytes.`);
  const production = body.production ?? current?.production ?? true;
  if (typeof production !== 'boolean') throw bad("'production' must be true (production engine) or false (staging).");
  const enabled = body.enabled ?? current?.enabled ?? true;
  if (typeof enabled !== 'boolean') throw bad("'enabled' must be a boolean.");
  nextTick(cron.trim(), timezone, new Date());
  return { functionName: fn, cron: cron.trim(), timezone, params, production, enabled };
}
