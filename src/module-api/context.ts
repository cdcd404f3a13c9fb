/**
 * Module surface (docs/architecture.md, "Module surface"): who is calling and which app. Modules
 * import the core only through src/module-api/; the dependency rule in `npm test` enforces it.
 */
export type { AppContext, Principal, RequestContext } from '../app-context.ts';
export { nowOf } from '../app-context.ts';
export type { Logger } from '../log.ts';
export { resolvePrincipal } from '../auth/principal.ts';
export { watchSessionInvalidations } from '../auth/cache-invalidation.ts';
import type { AppContext } from '../app-context.ts';
import { lookupSession } from '../auth/session-roles.ts';

/** The user a session token belongs to now, or undefined (revoked, expired, unknown). */
export async function sessionUser(app: AppContext, sessionToken: string): Promise<string | undefined> {
  return (await lookupSession(app.db, sessionToken))?.userId;
}
export { contextFromHeaders } from '../http/dispatch.ts';
