import { nowOf } from '../app-context.js';
import { invalidateSessions } from '../auth/cache-invalidation.js';
import { hashPassword } from '../users/password.js';
import { findUserBy, findUserById } from '../users/user-store.js';
import { emailOf, mailerOf, sendLinkMail } from './link-mail.js';
import { consumeMailToken, peekMailToken, retireMailTokens } from './mail-tokens.js';
import { replacePassword } from './new-password.js';
/**
 * POST /1.1/requestPasswordReset {email}: `{}` whatever the address, so the answer tells nobody
 * whether it has an account (docs/email-and-sms.md); the mail goes out after the answer.
 */
export async function requestPasswordReset(app, body) {
    const email = emailOf(body);
    const mailer = mailerOf(app);
    mailer.later('password reset mail', undefined, async () => {
        const row = await findUserBy(app.db, 'email', email);
        if (!row)
            return;
        const username = typeof row.data.username === 'string' ? row.data.username : undefined;
        await sendLinkMail(app, mailer, 'resetPassword', { objectId: row.objectId, email, username });
    });
    return {};
}
/** Who a still-valid reset link is for (the form greets them), or undefined. */
export async function checkResetLink(app, token) {
    const owner = await peekMailToken(app.db, 'resetPassword', token, nowOf(app));
    if (!owner)
        return undefined;
    const row = await findUserById(app.db, owner.userId);
    if (!row || row.data.email !== owner.email)
        return undefined;
    return { username: typeof row.data.username === 'string' ? row.data.username : owner.email };
}
/**
 * Uses a reset link with a new password (already checked to be acceptable). True when the
 * password was changed; false when the link is unknown, expired, used, or its user's email has
 * changed since. Concurrent uses of one link: exactly one is true.
 */
export async function resetPasswordByLink(app, token, password) {
    // Hash before the transaction: scrypt takes a while and must not hold the token's row lock.
    const hashed = await hashPassword(password);
    const now = nowOf(app);
    const userId = await app.db.transaction(async (tx) => {
        const owner = await consumeMailToken(tx, 'resetPassword', token, now);
        if (!owner)
            return undefined;
        if (!(await replacePassword(tx, { userId: owner.userId, email: owner.email }, hashed, now)))
            return undefined;
        await retireMailTokens(tx, 'resetPassword', owner.userId, now);
        return owner.userId;
    });
    if (!userId)
        return false;
    await invalidateSessions(app, userId);
    return true;
}
//# sourceMappingURL=password-reset.js.map