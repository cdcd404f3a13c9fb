/**
 * Who may change a user: `_User` ignores ACLs for writes (leancloud-behaviour §3.3). Only the
 * user itself (its own session token) or the master key may update, delete, refresh the token of
 * or change the password of a user, whatever the user's ACL says. Anyone else gets HTTP 403 with
 * code 206 "The user cannot be altered by a client without the session." (LeanCloud's error
 * table lists the message under 403; the JS SDK's own tests expect code 206).
 */
import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';

/** Throws 206/403 unless the caller is the master key or the user `objectId` itself. */
export async function assertOwnUserOrMaster(ctx: RequestContext, objectId: string): Promise<void> {
  if (ctx.master) return;
  const who = await ctx.principal();
  if (who.userId !== objectId) throw new ApiError('sessionRequired');
}
