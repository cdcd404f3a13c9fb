/**
 * Where the user writes meet the email verification flow (src/mail). The spec's state table:
 * `emailVerified` is null for a user created without an email or while verification is off;
 * whenever the email is set or changed with verification on it becomes false (in the same write)
 * and a verification mail goes out after the write commits.
 */
import type { AppContext } from '../app-context.ts';
import { startEmailVerification } from '../mail/verification-mail.ts';

/** True when the app's "verify email" option is on. */
export function emailVerificationOn(app: AppContext): boolean {
  return app.settings.emailVerification === true;
}

/**
 * The `emailVerified` a write that sets the email must store: false when verification is on;
 * otherwise null on sign-up, and on update the stored value stays (undefined: no change).
 */
export function emailVerifiedOnSet(app: AppContext, mode: 'create' | 'update'): boolean | null | undefined {
  if (emailVerificationOn(app)) return false;
  return mode === 'create' ? null : undefined;
}

/**
 * Sends the verification mail after a committed write that set the email. A mail failure does
 * not undo the write (the user exists; `requestEmailVerify` resends); the mail module logs it.
 */
export async function afterEmailSet(app: AppContext, user: { objectId: string; email: string; username?: string }): Promise<void> {
  if (!emailVerificationOn(app)) return;
  try {
    await startEmailVerification(app, user);
  } catch {
    // Logged by the mail module; see above.
  }
}
