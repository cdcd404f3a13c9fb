/**
 * A code given without its number could belong to any number that has one outstanding, so each
 * guess there tries all of them at once; per-number failure counts do not apply. This guard caps
 * the wrong guesses of that path for the whole app: after CODE_ONLY_FAILURES_PER_HOUR wrong
 * codes in a fixed one-hour window, codes without a number are refused (603) until the window
 * ends. Requests that send `mobilePhoneNumber` are never affected.
 */
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/** Wrong codes without a number accepted per hour, app-wide. */
export const CODE_ONLY_FAILURES_PER_HOUR = 20;
const SCOPE = 'code-only';

/** True while the app-wide budget of wrong guesses without a number is used up. */
export async function codeOnlyLocked(db: Queryable, now: Date): Promise<boolean> {
  const rows = await db.query<{ locked: boolean }>(sql`SELECT (failures >= ${CODE_ONLY_FAILURES_PER_HOUR}
      AND window_start > ${now.toISOString()}::timestamptz - interval '1 hour') AS locked
    FROM _larder_sms_guard WHERE scope = ${SCOPE}`);
  return rows[0]?.locked === true;
}

/** Counts one wrong guess without a number (a new window starts when the last one is over). */
export async function recordCodeOnlyFailure(db: Queryable, now: Date): Promise<void> {
  const t = sql`${now.toISOString()}::timestamptz`;
  await db.query(sql`INSERT INTO _larder_sms_guard (scope, window_start, failures) VALUES (${SCOPE}, ${t}, 1)
    ON CONFLICT (scope) DO UPDATE SET
      failures = CASE WHEN _larder_sms_guard.window_start > ${t} - interval '1 hour' THEN _larder_sms_guard.failures + 1 ELSE 1 END,
      window_start = CASE WHEN _larder_sms_guard.window_start > ${t} - interval '1 hour' THEN _larder_sms_guard.window_start ELSE ${t} END`);
}
