/**
 * Password reset by mail: `POST /1.1/requestPasswordReset {email}` mails a link valid for one
 * hour and usable once; the page behind it (src/http/routes/pages.ts) shows a form and posts the
 * new password back with the token. Using the link stores the new password, rotates the session
 * token (old sessions end), clears the login lock and retires the user's other reset links.
 */
import type { AppContext } from '../app-context.ts';
import { nowOf } from '../app-context.ts';
import { invalidateSessions } from '../auth/cache-invalidation.ts';
import { hashPassword } from '../users/password.ts';
import { findUserBy, findUserById } from '../users/user-store.ts';
import { emailOf, mailerOf, sendLinkMail } from '../mail/link-mail.ts';
import { consumeMailToken, peekMailToken, retireMailTokens } from '../mail/mail-tokens.ts';
import { replacePassword } from './new-password.ts';
import { UserRowChanges } from '../users/user-row-changes.ts';

/**
 * POST /1.1/requestPasswordReset {email}: `{}` whatever the address, so the answer tells nobody
 * whether it has an account (docs/email-and-sms.md); the mail goes out after the answer.
 */
export async function requestPasswordReset(app: AppContext, body: unknown): Promise<Record<string, never>> {
  const email = emailOf(body);
  const mailer = mailerOf(app);
  mailer.later('password reset mail', undefined, async () => {
    const row = await findUserBy(app.db, 'email', email);
    if (!row) return;
    const username = typeof row.data.username === 'string' ? row.data.username : undefined;
    await sendLinkMail(app, mailer, 'resetPassword', { objectId: row.objectId, email, username });
  });
  return {};
}

/** Who a still-valid reset link is for (the form greets them), or undefined. */
export async function checkResetLink(app: AppContext, token: unknown): Promise<{ username: string } | undefined> {
  const owner = await peekMailToken(app.db, 'resetPassword', token, nowOf(app));
  if (!owner) return undefined;
  const row = await findUserById(app.db, owner.userId);
  if (!row || row.data.email !== owner.email) return undefined;
  return { username: typeof row.data.username === 'string' ? row.data.username : owner.email };
}

/**
 * Uses a reset link with a new password (already checked to be acceptable). True when the
 * password was changed; false when the link is unknown, expired, used, or its user's email has
 * changed since. Concurrent uses of one link: exactly one is true.
 */
export async function resetPasswordByLink(app: AppContext, token: unknown, password: string): Promise<boolean> {
  // Hash before the transaction: scrypt takes a while and must not hold the token's row lock.
  const hashed = await hashPassword(password);
  const now = nowOf(app);
  const changes = new UserRowChanges(app);
  const userId = await app.db.transaction(async (tx) => {
    const owner = await consumeMailToken(tx, 'resetPassword', token, now);
    if (!owner) return undefined;
    if (!(await replacePassword(tx, changes, { userId: owner.userId, email: owner.email }, hashed, now))) return undefined;
    await retireMailTokens(tx, 'resetPassword', owner.userId, now);
    return owner.userId;
  });
  if (!userId) return false;
  await invalidateSessions(app, userId);
  changes.dispatch();
  return true;
}
