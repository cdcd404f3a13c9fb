/**
 * Authentication of a friends WebSocket upgrade: the core's upgrade authentication (app keys and
 * a required session, headers or query parameters), after the module's on/off switch, with the
 * module's own code for a missing header. A refusal is an HTTP answer on the raw socket with the
 * usual {code, error} body, so clients see why.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../../module-api/context.ts';
import { authenticateUpgrade as coreUpgradeAuth } from '../../../module-api/http.ts';
import { friendsError } from '../friends-errors.ts';
import { requireFriendsEnabled } from '../friends-enabled.ts';

/** The connecting user's id and session token, or an ApiError to answer with. */
export async function authenticateUpgrade(app: AppContext, headers: IncomingHttpHeaders, query: URLSearchParams): Promise<{ userId: string; sessionToken: string }> {
  requireFriendsEnabled(app);
  const caller = await coreUpgradeAuth(app, headers, query, {
    requireSession: true,
    missingHeader: (h) => friendsError('friendsMissingHeader', `Missing request header: ${h}.`),
  });
  // requireSession guarantees both; the checks keep the types honest.
  if (!caller.principal.userId || !caller.sessionToken) throw new Error('upgrade authenticated without a session');
  return { userId: caller.principal.userId, sessionToken: caller.sessionToken };
}
