/**
 * The login lock of the spec's state table: the 7th consecutive failed login within 15 minutes
 * locks the account; while locked every attempt is 219, even with the right password; the lock
 * ends 15 minutes after the last failure; a successful login resets the count.
 *
 * Race-safe by reserving before verifying: every password attempt first counts itself as a
 * failure in ONE atomic upsert on `_larder_login_failures`, which returns the verdict for this
 * attempt, decided from the row as it was under the row lock:
 *   - 'locked': 7 failures within 15 minutes already, the newest under 15 minutes ago: 219
 *     without checking the password (and without extending the lock);
 *   - 'last':   this attempt is the 7th within the window: checked; wrong -> 219 (now locked);
 *   - 'try':    checked; wrong -> 210.
 * A correct password deletes the row. So 20 parallel wrong logins get 6 x 210 and 14 x 219, and
 * only 7 passwords are ever compared. `recent` keeps the newest 7 failure times (a sliding window:
 * 7 failures spread over more than 15 minutes do not lock).
 */
import { sql, type Sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/** Consecutive failures that lock the account (the spec's default; app setting loginLockThreshold). */
export const LOCK_THRESHOLD = 7;
/** The window of those failures, and the lock's duration after the last one (app setting loginLockMinutes). */
export const LOCK_WINDOW_MS = 15 * 60 * 1000;

/**
 * The lock of one app: `threshold` failures within `windowMs` lock for `windowMs` after the last;
 * threshold 0 turns the lock off (then only rate limits slow a guesser down; docs/security.md).
 */
export interface LockPolicy {
  readonly threshold: number;
  readonly windowMs: number;
}

/** The spec's lock: 7 failures within 15 minutes. */
export const DEFAULT_LOCK: LockPolicy = Object.freeze({ threshold: LOCK_THRESHOLD, windowMs: LOCK_WINDOW_MS });

/**
 * Whose failures a check counts. Logins count per user; checks of the old password by a caller
 * that already holds the user's session (updatePassword) have their own counter, so that anyone
 * who knows a username and locks the login by guessing cannot also stop the signed-in owner from
 * changing the password with the right old one.
 */
export function lockKey(userId: string, purpose: 'login' | 'passwordChange'): string {
  // objectIds are letters and digits only, so the prefixed key never equals a user id.
  return purpose === 'login' ? userId : `passwordChange:${userId}`;
}

/** What to do with one login attempt. */
export type Verdict = 'try' | 'last' | 'locked';

/**
 * The decision as a pure function of the earlier failure times (ms, newest first), mirroring the
 * SQL below; `now` is injected so that tests need no clock.
 */
export function decideAttempt(recent: readonly number[], now: number, policy: LockPolicy = DEFAULT_LOCK): { verdict: Verdict; recent: number[] } {
  const { threshold, windowMs } = policy;
  if (threshold === 0) return { verdict: 'try', recent: [] };
  const window = recent.slice(0, threshold);
  const locked = window.length >= threshold
    && Math.max(...window) > now - windowMs
    && Math.max(...window) - Math.min(...window) <= windowMs;
  if (locked) return { verdict: 'locked', recent: [...recent] };
  const previous = recent.slice(0, threshold - 1);
  const last = previous.length >= threshold - 1 && now - Math.min(...previous) <= windowMs;
  return { verdict: last ? 'last' : 'try', recent: [now, ...recent].slice(0, threshold) };
}

function lockedSql(now: string, p: LockPolicy, window: Sql): Sql {
  return sql`(cardinality(f.recent) >= ${p.threshold}::int AND (SELECT max(t) > ${now}::timestamptz - ${window} AND max(t) - min(t) <= ${window}
    FROM unnest(f.recent[1:${p.threshold}::int]) AS t))`;
}

function lastChanceSql(now: string, p: LockPolicy, window: Sql): Sql {
  return sql`(cardinality(f.recent) >= ${p.threshold - 1}::int AND (SELECT ${now}::timestamptz - min(t) <= ${window}
    FROM unnest(f.recent[1:${p.threshold - 1}::int]) AS t))`;
}

/**
 * Counts an attempt of `key` (lockKey) in advance and returns its verdict (one atomic
 * statement). With the lock off (threshold 0) every attempt is a plain try.
 */
export async function reserveAttempt(q: Queryable, key: string, now: Date, policy: LockPolicy = DEFAULT_LOCK): Promise<Verdict> {
  if (policy.threshold === 0) return 'try';
  const at = now.toISOString();
  const window = sql`make_interval(secs => ${policy.windowMs / 1000}::double precision)`;
  const locked = lockedSql(at, policy, window);
  const rows = await q.query<{ verdict: Verdict }>(sql`
    INSERT INTO _larder_login_failures AS f (user_id, failures, last_failure, recent, verdict)
    VALUES (${key}, 1, ${at}::timestamptz, ARRAY[${at}::timestamptz], ${policy.threshold <= 1 ? 'last' : 'try'})
    ON CONFLICT (user_id) DO UPDATE SET
      failures = CASE WHEN ${locked} THEN f.failures ELSE f.failures + 1 END,
      last_failure = CASE WHEN ${locked} THEN f.last_failure ELSE ${at}::timestamptz END,
      recent = CASE WHEN ${locked} THEN f.recent ELSE (ARRAY[${at}::timestamptz] || f.recent)[1:${policy.threshold}::int] END,
      verdict = CASE WHEN ${locked} THEN 'locked' WHEN ${lastChanceSql(at, policy, window)} THEN 'last' ELSE 'try' END
    RETURNING verdict`);
  return rows[0].verdict;
}

/** The lock policy of an app's settings. */
export function lockPolicyOf(settings: { loginLockThreshold: number; loginLockMinutes: number }): LockPolicy {
  return { threshold: settings.loginLockThreshold, windowMs: settings.loginLockMinutes * 60 * 1000 };
}

/** A successful login or password change resets the user's counts (both purposes). */
export async function clearFailures(q: Queryable, userId: string): Promise<void> {
  await q.query(sql`DELETE FROM _larder_login_failures WHERE user_id IN (${lockKey(userId, 'login')}, ${lockKey(userId, 'passwordChange')})`);
}
