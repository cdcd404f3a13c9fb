import type { AppContext, Principal } from '../app-context.ts';

/**
 * Resolves who the caller is. Sessions and roles (users issue) extend this: a valid session
 * adds the user's id and its roles to the readers. An unknown or stale token is ignored here;
 * endpoints that require a session check for `userId` themselves.
 */
export async function resolvePrincipal(_app: AppContext, master: boolean, _sessionToken: string | undefined): Promise<Principal> {
  return { master, readers: ['*'] };
}
