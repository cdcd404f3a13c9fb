import type { Principal } from '../app-context.ts';
import { appSlot, type AppScope } from '../app-scope.ts';

/**
 * How long a resolved session may be served from memory without a notification. Invalidation
 * is by notification (cache-invalidation.ts); this bound only limits the damage of a lost one.
 */
export const PRINCIPAL_TTL_MS = 60_000;
/** Most sessions kept per app; the oldest entry goes first. */
export const MAX_CACHED_SESSIONS = 20_000;

interface Entry {
  readonly principal: Principal;
  readonly expires: number;
}

/**
 * Resolved principals by session token, per app and process. Every invalidation bumps a
 * generation: a lookup that began before an invalidation is not stored after it, so a request
 * racing a role change cannot put the old roles back into the cache.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly tokensOfUser = new Map<string, Set<string>>();
  private generation = 0;

  /** The cached principal of a token, if fresh. */
  get(token: string, now = Date.now()): Principal | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (e.expires > now) return e.principal;
    this.remove(token);
    return undefined;
  }

  /** Call before looking a token up; pass the result to put(). */
  mark(): number {
    return this.generation;
  }

  /** Stores a looked-up principal unless the cache was invalidated since `mark`. */
  put(token: string, principal: Principal, mark: number, now = Date.now()): void {
    if (mark !== this.generation || principal.userId === undefined) return;
    if (this.entries.size >= MAX_CACHED_SESSIONS) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
    this.entries.set(token, { principal, expires: now + PRINCIPAL_TTL_MS });
    const set = this.tokensOfUser.get(principal.userId) ?? new Set<string>();
    set.add(token);
    this.tokensOfUser.set(principal.userId, set);
  }

  /** Forgets every session of one user (token rotated, user deleted). */
  dropUser(userId: string): void {
    this.generation++;
    for (const t of this.tokensOfUser.get(userId) ?? []) this.entries.delete(t);
    this.tokensOfUser.delete(userId);
  }

  /** Forgets everything (a role or its membership changed: anyone's roles may differ). */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.tokensOfUser.clear();
  }

  /** Number of cached sessions (tests, diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  private remove(token: string): void {
    const e = this.entries.get(token);
    this.entries.delete(token);
    const uid = e?.principal.userId;
    if (uid === undefined) return;
    const set = this.tokensOfUser.get(uid);
    set?.delete(token);
    if (set && set.size === 0) this.tokensOfUser.delete(uid);
  }
}

const PRINCIPALS = appSlot<PrincipalCache>('auth.principals');

/** The principal cache of an app (made on first use; lives as long as the app's scope). */
export function principalCache(app: { readonly scope: AppScope }): PrincipalCache {
  return app.scope.ensure(PRINCIPALS, () => new PrincipalCache());
}
