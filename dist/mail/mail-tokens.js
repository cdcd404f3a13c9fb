/**
 * The secrets in mailed links: 32 bytes from the CSPRNG (43 characters of base64url), of which
 * only the sha256 is stored, so a copy of the database holds no working link. A token is
 * consumed by one conditional UPDATE (unused and unexpired), so two uses at once succeed once.
 * Each token records the address it was mailed to: once the user's email changes, the link stops
 * working. Mails of one kind to one address are limited to one a minute and ten a day (checked
 * under a per-address advisory lock), so nobody can flood a mailbox through Larder; requests
 * over the limit send nothing and answer as usual. The limit is per address, not per user, so
 * that a user who corrects a mistyped email gets the new mail at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sql } from '../sql/fragment.js';
/** How long a link works: a week to verify an email (spec), an hour to reset a password. */
export const TOKEN_TTL_MS = {
    verifyEmail: 7 * 24 * 60 * 60 * 1000,
    resetPassword: 60 * 60 * 1000,
};
/** Mails of one kind to one address per day (rolling 24 hours). */
export const MAILS_PER_DAY = 10;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const ts = (d) => sql `${d.toISOString()}::timestamptz`;
/** The stored form of a token. */
export function hashMailToken(token) {
    return createHash('sha256').update(token).digest('hex');
}
/** True for input shaped like a token; anything else is refused without a lookup. */
export function plausibleMailToken(token) {
    return typeof token === 'string' && TOKEN_SHAPE.test(token);
}
/**
 * Stores a new token for the user and address and returns it, or undefined when the address
 * already got a mail of this kind in the last minute or ten in the last day.
 */
export async function issueMailToken(db, kind, owner, now) {
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(now.getTime() + TOKEN_TTL_MS[kind]);
    return db.transaction(async (tx) => {
        await tx.query(sql `SELECT pg_advisory_xact_lock(hashtext(${`larder-mail:${kind}:${owner.email}`}))`);
        const [seen] = await tx.query(sql `SELECT
        count(*)::int AS day,
        (count(*) FILTER (WHERE created_at > ${ts(now)} - interval '1 minute'))::int AS minute
      FROM _larder_tokens WHERE email = ${owner.email} AND kind = ${kind} AND created_at > ${ts(now)} - interval '1 day'`);
        if (seen.minute > 0 || seen.day >= MAILS_PER_DAY)
            return undefined;
        await tx.query(sql `DELETE FROM _larder_tokens WHERE email = ${owner.email} AND kind = ${kind}
      AND created_at <= ${ts(now)} - interval '1 day' AND (used_at IS NOT NULL OR expires_at <= ${ts(now)})`);
        await tx.query(sql `INSERT INTO _larder_tokens (token_hash, kind, user_id, email, created_at, expires_at)
      VALUES (${hashMailToken(token)}, ${kind}, ${owner.userId}, ${owner.email}, ${ts(now)}, ${ts(expires)})`);
        return token;
    });
}
/** The owner of an unused, unexpired token, without using it (the reset form's GET). */
export async function peekMailToken(db, kind, token, now) {
    if (!plausibleMailToken(token))
        return undefined;
    const rows = await db.query(sql `SELECT user_id, email FROM _larder_tokens
    WHERE token_hash = ${hashMailToken(token)} AND kind = ${kind} AND used_at IS NULL AND expires_at > ${ts(now)}`);
    return rows[0] ? { userId: rows[0].user_id, email: rows[0].email } : undefined;
}
/** Uses a token: its owner exactly once, undefined when unknown, expired or already used. */
export async function consumeMailToken(q, kind, token, now) {
    if (!plausibleMailToken(token))
        return undefined;
    const rows = await q.query(sql `UPDATE _larder_tokens SET used_at = ${ts(now)}
    WHERE token_hash = ${hashMailToken(token)} AND kind = ${kind} AND used_at IS NULL AND expires_at > ${ts(now)}
    RETURNING user_id, email`);
    return rows[0] ? { userId: rows[0].user_id, email: rows[0].email } : undefined;
}
/** Retires the user's other outstanding tokens of a kind (after one of them was used). */
export async function retireMailTokens(q, kind, userId, now) {
    await q.query(sql `UPDATE _larder_tokens SET used_at = ${ts(now)} WHERE user_id = ${userId} AND kind = ${kind} AND used_at IS NULL`);
}
//# sourceMappingURL=mail-tokens.js.map