/**
 * `/session/kick` (§7.5): when a user's session is revoked (token refreshed, password changed or
 * reset, user deleted), its open friends sockets that were opened with the old token are told so
 * and closed. The core announces such changes on the cache-invalidation channel of every process
 * (auth/cache-invalidation.ts); this watches them through the module surface, and checks the sockets' tokens
 * against the database itself, not the principal cache, which another listener may not have
 * dropped yet.
 */
import { sessionUser, watchSessionInvalidations, type AppContext, type Logger } from '../../../module-api/context.ts';

/** Close code of a kicked connection. */
export const KICK_CLOSE_CODE = 4001;

/** What the kick needs of a connection. */
export interface SessionSocket {
  readonly userId: string;
  readonly sessionToken: string;
  kick(): void;
}

/** Starts watching; `socketsOf` lists this process's connections of a user. */
export async function watchRevokedSessions(app: AppContext, socketsOf: (userId: string) => readonly SessionSocket[], logger: Logger): Promise<void> {
  await watchSessionInvalidations(app, (userId) => {
    for (const s of socketsOf(userId)) {
      sessionUser(app, s.sessionToken).then(
        (owner) => {
          if (owner !== s.userId) s.kick();
        },
        (err: unknown) => logger.warn({ err }, 'friends: checking a revoked session failed'),
      );
    }
  });
}
