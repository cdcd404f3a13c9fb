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
import { sql } from '../sql/fragment.js';
/** Consecutive failures that lock the account. */
export const LOCK_THRESHOLD = 7;
/** The window of those failures, and the lock's duration after the last one. */
export const LOCK_WINDOW_MS = 15 * 60 * 1000;
/**
 * The decision as a pure function of the earlier failure times (ms, newest first), mirroring the
 * SQL below; `now` is injected so that tests need no clock.
 */
export function decideAttempt(recent, now) {
    const window = recent.slice(0, LOCK_THRESHOLD);
    const locked = window.length >= LOCK_THRESHOLD
        && Math.max(...window) > now - LOCK_WINDOW_MS
        && Math.max(...window) - Math.min(...window) <= LOCK_WINDOW_MS;
    if (locked)
        return { verdict: 'locked', recent: [...recent] };
    const previous = recent.slice(0, LOCK_THRESHOLD - 1);
    const last = previous.length >= LOCK_THRESHOLD - 1 && now - Math.min(...previous) <= LOCK_WINDOW_MS;
    return { verdict: last ? 'last' : 'try', recent: [now, ...recent].slice(0, LOCK_THRESHOLD) };
}
const WINDOW = sql `make_interval(secs => ${LOCK_WINDOW_MS / 1000})`;
function lockedSql(now) {
    return sql `(cardinality(f.recent) >= ${LOCK_THRESHOLD} AND (SELECT max(t) > ${now}::timestamptz - ${WINDOW} AND max(t) - min(t) <= ${WINDOW}
    FROM unnest(f.recent[1:${LOCK_THRESHOLD}]) AS t))`;
}
function lastChanceSql(now) {
    return sql `(cardinality(f.recent) >= ${LOCK_THRESHOLD - 1} AND (SELECT ${now}::timestamptz - min(t) <= ${WINDOW}
    FROM unnest(f.recent[1:${LOCK_THRESHOLD - 1}]) AS t))`;
}
/** Counts an attempt in advance and returns its verdict (one atomic statement). */
export async function reserveAttempt(q, userId, now) {
    const at = now.toISOString();
    const locked = lockedSql(at);
    const rows = await q.query(sql `
    INSERT INTO _larder_login_failures AS f (user_id, failures, last_failure, recent, verdict)
    VALUES (${userId}, 1, ${at}::timestamptz, ARRAY[${at}::timestamptz], ${LOCK_THRESHOLD <= 1 ? 'last' : 'try'})
    ON CONFLICT (user_id) DO UPDATE SET
      failures = CASE WHEN ${locked} THEN f.failures ELSE f.failures + 1 END,
      last_failure = CASE WHEN ${locked} THEN f.last_failure ELSE ${at}::timestamptz END,
      recent = CASE WHEN ${locked} THEN f.recent ELSE (ARRAY[${at}::timestamptz] || f.recent)[1:${LOCK_THRESHOLD}] END,
      verdict = CASE WHEN ${locked} THEN 'locked' WHEN ${lastChanceSql(at)} THEN 'last' ELSE 'try' END
    RETURNING verdict`);
    return rows[0].verdict;
}
/** A successful login (or a password change) resets the count. */
export async function clearFailures(q, userId) {
    await q.query(sql `DELETE FROM _larder_login_failures WHERE user_id = ${userId}`);
}
//# sourceMappingURL=login-lock.js.map