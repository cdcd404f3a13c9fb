/**
 * `/session/kick` (§7.5): when a user's session is revoked (token refreshed, password changed or
 * reset, user deleted), its open friends sockets that were opened with the old token are told so
 * and closed. The core announces such changes on the cache-invalidation channel of every process
 * (auth/cache-invalidation.ts); this listens on the same channel, and checks the sockets' tokens
 * against the database itself, not the principal cache, which another listener may not have
 * dropped yet.
 */
import type { AppContext } from '../../../app-context.ts';
import { INVALIDATION_CHANNEL } from '../../../auth/cache-invalidation.ts';
import { lookupSession } from '../../../roles/session-roles.ts';
import type { Logger } from '../../../log.ts';

/** Close code of a kicked connection. */
export const KICK_CLOSE_CODE = 4001;

/** What the kick needs of a connection. */
export interface SessionSocket {
  readonly userId: string;
  readonly sessionToken: string;
  kick(): void;
}

function revokedUser(payload: string, schema: string): string | undefined {
  try {
    const m: unknown = JSON.parse(payload);
    if (typeof m !== 'object' || m === null) return undefined;
    const r = m as Record<string, unknown>;
    return r.k === 'sessions' && r.s === schema && typeof r.u === 'string' ? r.u : undefined;
  } catch {
    return undefined;
  }
}

/** Starts watching; `socketsOf` lists this process's connections of a user. */
export async function watchRevokedSessions(app: AppContext, socketsOf: (userId: string) => readonly SessionSocket[], logger: Logger): Promise<void> {
  if (!app.db.listen) return;
  await app.db.listen(
    INVALIDATION_CHANNEL,
    (payload) => {
      const userId = revokedUser(payload, app.db.schema);
      if (!userId) return;
      for (const s of socketsOf(userId)) {
        lookupSession(app.db, s.sessionToken).then(
          (found) => {
            if (found?.userId !== s.userId) s.kick();
          },
          (err: unknown) => logger.warn({ err }, 'friends: checking a revoked session failed'),
        );
      }
    },
    () => {},
  );
}
