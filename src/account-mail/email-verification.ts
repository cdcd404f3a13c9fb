/**
 * Email verification (spec: States and transitions, emailVerified). The users use-cases set
 * `emailVerified` false in the write that sets or changes an email (with the option on) and then
 * call startEmailVerification; `requestEmailVerify` resends; following the link (valid one week,
 * single-use, only for the address it was sent to) sets `emailVerified` true.
 */
import type { AppContext } from '../app-context.ts';
import { runOnVerified } from '../cloud/user-hooks.ts';
import { nowOf } from '../app-context.ts';
import { sql } from '../sql/fragment.ts';
import { findUserBy } from '../users/user-store.ts';
import { UserRowChanges } from '../users/user-row-changes.ts';
import { emailOf, mailerOf, sendLinkMail } from '../mail/link-mail.ts';
import { consumeMailToken, retireMailTokens } from '../mail/mail-tokens.ts';

/**
 * POST /1.1/requestEmailVerify {email}: resends the link to an unverified address. The answer is
 * `{}` for an unknown or already verified address too, so it tells nobody which addresses have
 * accounts (decision in docs/email-and-sms.md).
 */
export async function requestEmailVerify(app: AppContext, body: unknown): Promise<Record<string, never>> {
  const email = emailOf(body);
  const mailer = mailerOf(app);
  mailer.later('verification mail', undefined, async () => {
    const row = await findUserBy(app.db, 'email', email);
    if (!row || row.data.emailVerified === true) return;
    const username = typeof row.data.username === 'string' ? row.data.username : undefined;
    await sendLinkMail(app, mailer, 'verifyEmail', { objectId: row.objectId, email, username });
  });
  return {};
}

/** The outcome of following a verification link: the verified address, or undefined. */
export async function verifyEmail(app: AppContext, token: unknown): Promise<{ email: string } | undefined> {
  const now = nowOf(app);
  const changes = new UserRowChanges(app);
  const verified = await app.db.transaction(async (tx) => {
    const owner = await consumeMailToken(tx, 'verifyEmail', token, now);
    if (!owner) return undefined;
    // Only while the user still has the address the link was sent to.
    const rows = await changes.update(tx, sql`data = data || '{"emailVerified": true}'::jsonb, "updatedAt" = ${now.toISOString()}::timestamptz`,
      sql`"objectId" = ${owner.userId} AND data->>'email' = ${owner.email}`, ['emailVerified']);
    if (!rows.length) return undefined;
    await retireMailTokens(tx, 'verifyEmail', owner.userId, now);
    return { email: owner.email, userId: owner.userId };
  });
  if (!verified) return undefined;
  changes.dispatch();
  // After the commit: the engine may read the user back and must see it verified.
  runOnVerified(app, 'email', verified.userId);
  return { email: verified.email };
}
