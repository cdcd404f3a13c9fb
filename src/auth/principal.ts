import type { AppContext, Principal } from '../app-context.ts';
import { lookupSession } from './session-roles.ts';
import { principalCache } from './principal-cache.ts';

/** Longest session token looked up; anything longer cannot be one (ours are 25 characters). */
export const MAX_SESSION_TOKEN_LENGTH = 256;

const ANONYMOUS: Principal = Object.freeze({ master: false, readers: Object.freeze(['*']) });
const MASTER: Principal = Object.freeze({ master: true, readers: Object.freeze(['*']) });

/** The readers of a user: '*', the user's id, and 'role:<name>' for every role it holds. */
export function readersFor(userId: string, roles: readonly string[]): string[] {
  return ['*', userId, ...roles.map((r) => `role:${r}`)];
}

/**
 * Resolves who the caller is: the session token's user and every role it holds, through any
 * depth of role inheritance (one statement, auth/session-roles.ts), served from a per-process
 * cache that role changes, token rotation and user deletion invalidate in every process
 * (cache-invalidation.ts). An unknown or stale token is ignored here: the caller is anonymous
 * (readers ['*'], no userId); endpoints that need a session check `userId` themselves. The
 * master key bypasses every check but still learns the session's user.
 */
export async function resolvePrincipal(app: AppContext, master: boolean, sessionToken: string | undefined): Promise<Principal> {
  const base = master ? MASTER : ANONYMOUS;
  if (!sessionToken || sessionToken.length > MAX_SESSION_TOKEN_LENGTH) return base;
  const cache = principalCache(app);
  const hit = cache.get(sessionToken);
  if (hit) return master ? { ...hit, master } : hit;
  const mark = cache.mark();
  const found = await lookupSession(app.db, sessionToken);
  if (!found) return base;
  const principal: Principal = { master: false, userId: found.userId, readers: readersFor(found.userId, found.roles) };
  cache.put(sessionToken, principal, mark);
  return master ? { ...principal, master } : principal;
}
