import { INVALIDATION_CHANNEL } from '../../../auth/cache-invalidation.js';
import { lookupSession } from '../../../roles/session-roles.js';
/** Close code of a kicked connection. */
export const KICK_CLOSE_CODE = 4001;
function revokedUser(payload, schema) {
    try {
        const m = JSON.parse(payload);
        if (typeof m !== 'object' || m === null)
            return undefined;
        const r = m;
        return r.k === 'sessions' && r.s === schema && typeof r.u === 'string' ? r.u : undefined;
    }
    catch {
        return undefined;
    }
}
/** Starts watching; `socketsOf` lists this process's connections of a user. */
export async function watchRevokedSessions(app, socketsOf, logger) {
    if (!app.db.listen)
        return;
    await app.db.listen(INVALIDATION_CHANNEL, (payload) => {
        const userId = revokedUser(payload, app.db.schema);
        if (!userId)
            return;
        for (const s of socketsOf(userId)) {
            lookupSession(app.db, s.sessionToken).then((found) => {
                if (found?.userId !== s.userId)
                    s.kick();
            }, (err) => logger.warn({ err }, 'friends: checking a revoked session failed'));
        }
    }, () => { });
}
//# sourceMappingURL=session-kick.js.map