/**
 * The verification mail of a (new) email address, sent after the write that set it
 * (users/email-hooks.ts). The flows that answer the link are in src/account-mail/.
 */
import type { AppContext } from '../app-context.ts';
import { sendLinkMail } from './link-mail.ts';

/**
 * Starts the verification of a user's (new) email address: issues a single-use link and mails it
 * after the current request. Without an SMTP server nothing is sent (the state is still false;
 * `requestEmailVerify` then answers 503, which tells the operator).
 */
export async function startEmailVerification(app: AppContext, user: { objectId: string; email: string; username?: string }): Promise<void> {
  const mailer = app.mailer;
  if (!mailer) return;
  mailer.later('verification mail', user.objectId, async () => {
    await sendLinkMail(app, mailer, 'verifyEmail', user);
  });
}
