/**
 * The `_User` hooks of LeanEngine outside the write pipeline (spec/leancloud-services.md §2):
 * `onAuthData` before an authData login or sign-up (its result replaces the authData; run by
 * users/auth-data-hook.ts, the users flow that needs it), and
 * `onVerified` after an email or phone number was verified (its errors are logged and counted,
 * never seen by the client). `onLogin` is the pipeline's `login` stage (class-hooks.ts). Each
 * runs only when the engine's hook list names it, so apps without these hooks pay nothing.
 */
import type { AppContext } from '../app-context.ts';
import { ON_AUTH_DATA_HOOK } from '../users/auth-data-hook.ts';
import { userResponse } from '../users/user-response.ts';
import { findUserById } from '../users/user-store.ts';

/** Hook names as the engine's metadatas list them. */
export const USER_HOOKS = {
  onLogin: '__on_login__User',
  onAuthData: ON_AUTH_DATA_HOOK,
  onVerifiedEmail: '__on_verified_email',
  onVerifiedSms: '__on_verified_sms',
} as const;

/**
 * Runs onVerified (`email` or `sms`) for a user whose address was just verified. Not awaited
 * by the request: failures are logged and counted.
 */
export function runOnVerified(app: AppContext, type: 'email' | 'sms', userId: string): void {
  const cloud = app.cloud;
  if (!cloud?.hooks.has(type === 'email' ? USER_HOOKS.onVerifiedEmail : USER_HOOKS.onVerifiedSms)) return;
  const run = async () => {
    const row = await findUserById(app.db, userId);
    if (!row) return;
    await cloud.callHook(app, `/1.1/functions/onVerified/${type}`, { object: userResponse(row) }, { timeoutMs: cloud.options.hookTimeoutMs, production: true });
  };
  run().catch((err: unknown) => {
    cloud.counters.afterHookFailures++;
    cloud.logger.warn({ hook: `onVerified/${type}`, userId, reason: (err as Error).message }, 'cloud code: hook failed');
  });
}
