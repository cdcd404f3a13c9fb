/**
 * The `_User` hooks of LeanEngine outside the write pipeline (spec/leancloud-services.md §2):
 * `onAuthData` before an authData login or sign-up (its result replaces the authData), and
 * `onVerified` after an email or phone number was verified (its errors are logged and counted,
 * never seen by the client). `onLogin` is the pipeline's `login` stage (class-hooks.ts). Each
 * runs only when the engine's hook list names it, so apps without these hooks pay nothing.
 */
import type { AppContext, RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { userResponse } from '../users/user-response.ts';
import { findUserById } from '../users/user-store.ts';

/** Hook names as the engine's metadatas list them. */
export const USER_HOOKS = {
  onLogin: '__on_login__User',
  onAuthData: '__on_authdata__User',
  onVerifiedEmail: '__on_verified_email',
  onVerifiedSms: '__on_verified_sms',
} as const;

/**
 * Runs onAuthData on the authData of a login or sign-up; returns the authData to use (the
 * hook's result, or the given one when the engine has no such hook).
 */
export async function runOnAuthData(ctx: RequestContext, authData: unknown): Promise<unknown> {
  const cloud = ctx.app.cloud;
  if (!cloud?.hooks.has(USER_HOOKS.onAuthData)) return authData;
  const out = await cloud.callHook(ctx.app, '/1.1/functions/_User/onAuthData', { authData }, {
    timeoutMs: cloud.options.beforeHookTimeoutMs,
    production: ctx.production,
  });
  if (out.kind === 'missing') return authData;
  const result = isPlainObject(out.value) ? out.value.result : undefined;
  if (!isPlainObject(result)) throw new ApiError('engineBadAnswer', 'onAuthData must answer {"result": <authData object>}.');
  return result;
}

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
