/**
 * LeanEngine's `onAuthData` hook (spec/leancloud-services.md §2), run before an authData login or
 * sign-up: its result replaces the authData. It lives with the users flow that calls it; the
 * engine itself is reached through the app (`app.cloud`), so users never import cloud code.
 */
import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** The hook's name as the engine's metadatas list it. */
export const ON_AUTH_DATA_HOOK = '__on_authdata__User';

/**
 * Runs onAuthData on the authData of a login or sign-up; returns the authData to use (the
 * hook's result, or the given one when the engine has no such hook).
 */
export async function runOnAuthData(ctx: RequestContext, authData: unknown): Promise<unknown> {
  const cloud = ctx.app.cloud;
  if (!cloud?.hooks.has(ON_AUTH_DATA_HOOK)) return authData;
  const out = await cloud.callHook(ctx.app, '/1.1/functions/_User/onAuthData', { authData }, {
    timeoutMs: cloud.options.beforeHookTimeoutMs,
    production: ctx.production,
  });
  if (out.kind === 'missing') return authData;
  const result = isPlainObject(out.value) ? out.value.result : undefined;
  if (!isPlainObject(result)) throw new ApiError('engineBadAnswer', 'onAuthData must answer {"result": <authData object>}.');
  return result;
}
