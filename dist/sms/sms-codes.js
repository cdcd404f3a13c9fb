/**
 * SMS codes: six digits from the CSPRNG, stored as a sha256 (never in the clear), valid for a TTL,
 * single-use. Per number at most one code a minute and ten a day (601), as LeanCloud; the rows of
 * the last day are that history, and issuing holds a per-number advisory lock so that concurrent
 * requests cannot both pass the limit. A code is consumed by one conditional UPDATE: two requests
 * with the same code race on the row, and only the one whose UPDATE matches an unused row wins.
 * Five wrong guesses at a number retire its outstanding codes, so a code cannot be brute-forced.
 *
 * The hash does not make a six-digit code secret to someone who can read the table (a million
 * candidates); it keeps codes out of backups, query logs and casual sight.
 */
import { createHash, randomInt } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { sql } from '../sql/fragment.js';
/** Default, smallest and largest TTL of a code, minutes (requestSmsCode's `ttl`). */
export const SMS_TTL_DEFAULT_MINUTES = 10;
export const SMS_TTL_MIN_MINUTES = 1;
export const SMS_TTL_MAX_MINUTES = 30;
/** Codes sent to one number per day (a rolling 24 hours). */
export const SMS_CODES_PER_DAY = 10;
/** Wrong guesses at a number after which its outstanding codes stop working. */
export const SMS_MAX_FAILURES = 5;
/** The stored form of a code. */
export function hashSmsCode(code) {
    return createHash('sha256').update(`larder-sms:${code}`).digest('hex');
}
/** A new six-digit code, uniformly drawn. */
export function newSmsCode() {
    return String(randomInt(0, 1_000_000)).padStart(6, '0');
}
const ts = (d) => sql `${d.toISOString()}::timestamptz`;
/**
 * Stores a new code for `phone`, or throws 601 when the number had a code in the last minute or
 * ten in the last day. Also forgets the number's rows older than a day. A code that is not
 * `usable` (it will not be sent) is stored as already used: it counts for the limits only.
 */
export async function issueSmsCode(db, phone, purpose, ttlMinutes, now, usable = true) {
    const code = newSmsCode();
    const expires = new Date(now.getTime() + ttlMinutes * 60_000);
    const id = await db.transaction(async (tx) => {
        await tx.query(sql `SELECT pg_advisory_xact_lock(hashtext(${`larder-sms:${phone}`}))`);
        const [seen] = await tx.query(sql `SELECT
        count(*)::int AS day,
        (count(*) FILTER (WHERE created_at > ${ts(now)} - interval '1 minute'))::int AS minute
      FROM _larder_sms_codes WHERE phone = ${phone} AND created_at > ${ts(now)} - interval '1 day'`);
        if (seen.minute > 0)
            throw new ApiError('smsTooFrequent', "Can't send SMS too frequently: one code a minute per number.");
        if (seen.day >= SMS_CODES_PER_DAY)
            throw new ApiError('smsTooFrequent', `Can't send SMS too frequently: at most ${SMS_CODES_PER_DAY} codes a day per number.`);
        await tx.query(sql `DELETE FROM _larder_sms_codes WHERE phone = ${phone} AND created_at <= ${ts(now)} - interval '1 day'`);
        const usedAt = usable ? null : now.toISOString();
        const [row] = await tx.query(sql `INSERT INTO _larder_sms_codes (phone, code_hash, purpose, created_at, expires_at, used_at)
      VALUES (${phone}, ${hashSmsCode(code)}, ${purpose}, ${ts(now)}, ${ts(expires)}, ${usedAt}::timestamptz) RETURNING id::text AS id`);
        return row.id;
    });
    return { id, code };
}
/** Forgets a code that could not be sent: it never reached anyone and does not count. */
export async function withdrawSmsCode(db, id) {
    await db.query(sql `DELETE FROM _larder_sms_codes WHERE id = ${id}::bigint`);
}
/** True for input shaped like a code; anything else is a wrong guess without a lookup. */
function plausible(code) {
    return /^[0-9]{6}$/.test(code);
}
/**
 * Consumes a valid code of `phone` (of any purpose unless `purpose` is given): true exactly once per code, also under
 * concurrent use. A success retires the number's other outstanding codes; a failure counts as a
 * wrong guess against them. `now` is the clock of expiry (injectable for tests).
 */
export async function consumeSmsCode(db, phone, code, now = new Date(), purpose) {
    if (typeof phone !== 'string' || typeof code !== 'string')
        return false;
    // With a purpose, only a code issued for it counts (a phone change names its user there).
    const ofPurpose = purpose === undefined ? sql `` : sql ` AND purpose = ${purpose}`;
    const claimed = plausible(code)
        ? await db.query(sql `UPDATE _larder_sms_codes SET used_at = ${ts(now)}
        WHERE phone = ${phone} AND code_hash = ${hashSmsCode(code)}${ofPurpose} AND used_at IS NULL
          AND expires_at > ${ts(now)} AND failures < ${SMS_MAX_FAILURES}
        RETURNING id`)
        : [];
    if (claimed.length) {
        await db.query(sql `UPDATE _larder_sms_codes SET used_at = ${ts(now)} WHERE phone = ${phone} AND used_at IS NULL`);
        return true;
    }
    await db.query(sql `UPDATE _larder_sms_codes SET failures = failures + 1
    WHERE phone = ${phone} AND used_at IS NULL AND expires_at > ${ts(now)}`);
    return false;
}
/**
 * Consumes a code given without its number (the JS SDK's resetPasswordBySmsCode and
 * verifyMobilePhone send none): only codes of the given purposes, and only when exactly one
 * outstanding code matches. Returns the number the code was sent to, or undefined. The caller
 * guards this path against guessing across all numbers (code-guard.ts).
 */
export async function consumeSmsCodeWithoutPhone(db, code, purposes, now) {
    if (!plausible(code))
        return undefined;
    const candidates = await db.query(sql `SELECT id::text AS id, phone FROM _larder_sms_codes
    WHERE code_hash = ${hashSmsCode(code)} AND used_at IS NULL AND expires_at > ${ts(now)}
      AND failures < ${SMS_MAX_FAILURES} AND purpose = ANY(${[...purposes]}::text[])
    LIMIT 2`);
    // Two numbers holding the same code: refuse rather than pick one (the client can send the number).
    if (candidates.length !== 1)
        return undefined;
    const [{ id, phone }] = candidates;
    const claimed = await db.query(sql `UPDATE _larder_sms_codes SET used_at = ${ts(now)}
    WHERE id = ${id}::bigint AND used_at IS NULL RETURNING id`);
    if (!claimed.length)
        return undefined;
    await db.query(sql `UPDATE _larder_sms_codes SET used_at = ${ts(now)} WHERE phone = ${phone} AND used_at IS NULL`);
    return phone;
}
//# sourceMappingURL=sms-codes.js.map