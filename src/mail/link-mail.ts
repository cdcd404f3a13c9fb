/**
 * Mails that carry a link (verify email, reset password): the shared steps of both flows. The
 * request endpoints answer `{}` whatever the address (see docs/email-and-sms.md, "Enumeration"):
 * the lookup, the token and the mail happen after the answer, in `Mailer.later`.
 */
import type { AppContext } from '../app-context.ts';
import { nowOf } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { isValidEmail } from '../model/contact.ts';
import type { Mailer } from './mailer.ts';
import { fill, oneLine, textsOf } from './mail-texts.ts';
import { issueMailToken, type TokenKind } from './mail-tokens.ts';

/** The user a link mail goes to. */
export interface LinkMailUser {
  readonly objectId: string;
  readonly email: string;
  readonly username?: string;
}

/** Path of the page behind each kind of link (served by src/http/routes/pages.ts). */
export const LINK_PATHS: Readonly<Record<TokenKind, string>> = {
  verifyEmail: '/larder/verify-email',
  resetPassword: '/larder/reset-password',
};

/** The `email` of a request body: 204 when missing, 125 when not an email address. */
export function emailOf(body: unknown): string {
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  const email = body.email;
  if (email === undefined || email === null || email === '') throw new ApiError('emailMissing');
  if (typeof email !== 'string' || !isValidEmail(email)) throw new ApiError('invalidEmail');
  return email;
}

/** The app's mailer, or 503 when no SMTP server is configured. */
export function mailerOf(app: AppContext): Mailer {
  if (!app.mailer) throw new ApiError('mailNotConfigured', 'Sending email is not configured on this server (LARDER_SMTP_URL).');
  return app.mailer;
}

/**
 * Issues a token and mails its link. Sends nothing when the user is over the mail limit of this
 * kind (mail-tokens.ts). Rejects when the SMTP server refuses the mail.
 */
export async function sendLinkMail(app: AppContext, mailer: Mailer, kind: TokenKind, user: LinkMailUser): Promise<boolean> {
  const token = await issueMailToken(app.db, kind, { userId: user.objectId, email: user.email }, nowOf(app));
  if (!token) return false;
  const texts = textsOf(app);
  const values = { username: user.username ?? user.email, email: user.email, link: `${mailer.linkBaseUrl}${LINK_PATHS[kind]}?token=${token}` };
  const subject = kind === 'verifyEmail' ? texts.verifyEmailSubject : texts.resetPasswordSubject;
  const body = kind === 'verifyEmail' ? texts.verifyEmailBody : texts.resetPasswordBody;
  await mailer.send({ to: user.email, subject: oneLine(fill(subject, texts.appName, values)), text: fill(body, texts.appName, values) });
  return true;
}
