/**
 * The `user` of a hook call: the caller's user as REST JSON with its session token (the engine
 * SDKs read `request.currentUser` and its token from there). Read once per request: a batch of
 * fifty hooked writes asks the database once.
 */
import type { RequestContext } from '../app-context.ts';
import { userResponse } from '../users/user-response.ts';
import { findUserById } from '../users/user-store.ts';

const cache = new WeakMap<RequestContext, Promise<Record<string, unknown> | undefined>>();

async function load(ctx: RequestContext): Promise<Record<string, unknown> | undefined> {
  if (!ctx.sessionToken) return undefined;
  const { userId } = await ctx.principal();
  if (!userId) return undefined;
  const row = await findUserById(ctx.app.db, userId);
  return row ? userResponse(row, { sessionToken: ctx.sessionToken }) : undefined;
}

/** The current user of a request for hook bodies, or undefined without a valid session. */
export function currentUserJson(ctx: RequestContext): Promise<Record<string, unknown> | undefined> {
  let p = cache.get(ctx);
  if (!p) {
    p = load(ctx);
    cache.set(ctx, p);
  }
  return p;
}
