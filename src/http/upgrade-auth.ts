/**
 * Authentication of a WebSocket upgrade with the core's own rules, before any WebSocket exists:
 * X-LC-Id, X-LC-Key (or X-LC-Sign) and X-LC-Session from the upgrade headers, or the same names
 * as query parameters (browsers cannot set headers on a WebSocket). Modules reach it through
 * src/module-api/http.ts; a refusal is an ApiError the module answers on the raw socket.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext, Principal } from '../app-context.ts';
import { resolvePrincipal } from '../auth/principal.ts';
import { ApiError } from '../errors/api-error.ts';
import { callerFromHeaders } from './credentials.ts';
import { authenticateCaller } from './dispatch.ts';

/** Credentials accepted as query parameters (lower-cased names). */
const QUERY_NAMES = ['x-lc-id', 'x-lc-key', 'x-lc-sign', 'x-lc-session'];

/** Upgrade headers, completed by query parameters where a header is absent. */
function credentialsBag(headers: IncomingHttpHeaders, query: URLSearchParams): Record<string, string | string[] | undefined> {
  const bag: Record<string, string | string[] | undefined> = { ...headers };
  for (const [k, v] of query) {
    const name = k.toLowerCase();
    if (!QUERY_NAMES.includes(name) || bag[name] !== undefined || v === '') continue;
    // A URL ends up in logs, proxies and browser history: the master key never comes that way.
    if ((name === 'x-lc-key' || name === 'x-lc-sign') && v.trim().endsWith(',master')) {
      throw new ApiError('unauthorized', 'The master key is not accepted in a query string.');
    }
    bag[name] = v;
  }
  return bag;
}

/** How a module wants an upgrade checked. */
export interface UpgradeAuthOptions {
  /** The upgrade must carry a valid session (X-LC-Session). */
  readonly requireSession: boolean;
  /** The error for a missing header (the module's own code); `unauthorized` by default. */
  readonly missingHeader?: (header: 'X-LC-Id' | 'X-LC-Key' | 'X-LC-Session') => ApiError;
}

/** Who opened the socket. With `requireSession`, `principal.userId` and `sessionToken` are set. */
export interface UpgradeCaller {
  readonly master: boolean;
  readonly sessionToken?: string;
  readonly principal: Principal;
}

/** Checks an upgrade's app keys (and session) as a REST request would be checked. */
export async function authenticateUpgrade(app: AppContext, headers: IncomingHttpHeaders, query: URLSearchParams, opts: UpgradeAuthOptions): Promise<UpgradeCaller> {
  const missing = opts.missingHeader ?? ((h: string) => new ApiError('unauthorized', `Missing request header: ${h}.`));
  const caller = callerFromHeaders(credentialsBag(headers, query));
  const c = caller.credentials;
  if (!c.appId) throw missing('X-LC-Id');
  if (!c.key && !c.sign && !c.masterKey) throw missing('X-LC-Key');
  const master = authenticateCaller(app, caller);
  if (opts.requireSession && !caller.sessionToken) throw missing('X-LC-Session');
  const principal = await resolvePrincipal(app, master, caller.sessionToken);
  if (opts.requireSession && !principal.userId) throw new ApiError('unauthorized', 'Invalid session token (X-LC-Session).');
  return { master, sessionToken: caller.sessionToken, principal };
}
