import { startEmailVerification } from '../mail/email-verification.js';
/** True when the app's "verify email" option is on. */
export function emailVerificationOn(app) {
    return app.settings.emailVerification === true;
}
/**
 * The `emailVerified` a write that sets the email must store: false when verification is on;
 * otherwise null on sign-up, and on update the stored value stays (undefined: no change).
 */
export function emailVerifiedOnSet(app, mode) {
    if (emailVerificationOn(app))
        return false;
    return mode === 'create' ? null : undefined;
}
/**
 * Sends the verification mail after a committed write that set the email. A mail failure does
 * not undo the write (the user exists; `requestEmailVerify` resends); the mail module logs it.
 */
export async function afterEmailSet(app, user) {
    if (!emailVerificationOn(app))
        return;
    try {
        await startEmailVerification(app, user);
    }
    catch {
        // Logged by the mail module; see above.
    }
}
//# sourceMappingURL=email-hooks.js.map