import { ApiError } from '../../../module-api/errors.ts';
import type { ApiRequest } from '../../../module-api/http.ts';
import { requireFriendsEnabled } from '../friends-enabled.ts';
import { friendsError } from '../friends-errors.ts';

/** Who calls a friends read endpoint: the master key, a user, or both. */
export interface FriendsCaller {
  readonly master: boolean;
  readonly userId?: string;
}

/**
 * The common gate of presence endpoints: the service must be on, and a client (not the master
 * key) must send X-LC-Session (400 "Missing request header" as the spec says) naming a live
 * session (401 otherwise). With `needUser`, even the master key must name a user.
 */
export async function friendsCaller(req: ApiRequest, needUser: boolean): Promise<FriendsCaller> {
  requireFriendsEnabled(req.ctx.app);
  if (!req.ctx.sessionToken) {
    if (req.ctx.master && !needUser) return { master: true };
    throw friendsError('friendsMissingHeader', 'Missing request header: X-LC-Session.');
  }
  const p = await req.ctx.principal();
  if (!p.userId) throw new ApiError('unauthorized', 'Invalid session token (X-LC-Session).');
  return { master: req.ctx.master, userId: p.userId };
}

/** Management endpoints: the service must be on and the caller must use the master key. */
export function requireFriendsMaster(req: ApiRequest): void {
  requireFriendsEnabled(req.ctx.app);
  if (!req.ctx.master) throw new ApiError('masterKeyRequired', 'Rich presence configuration needs the master key (X-LC-Key: <master key>,master).');
}
