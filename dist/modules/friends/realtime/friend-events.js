import { friendIdsOf } from '../friendship/friend-ids.js';
import { loadBaseInfo } from '../presence/presence-config.js';
import { ensurePresenceTables } from '../presence/presence-tables.js';
import { notifyUsers } from './notify.js';
/** Notification paths of the friends WebSocket. */
export const PATHS = {
    online: 'friendship/friend/online',
    presence: 'friendship/rich_presence/update',
    kick: '/session/kick',
};
/** Tells the user's friends that it came online or went offline. */
export async function announceOnline(app, userId, online) {
    await ensurePresenceTables(app.db);
    const base = await loadBaseInfo(app.db);
    if (!base.onlineMsgEnabled)
        return;
    await notifyUsers(app, await friendIdsOf(app, userId), PATHS.online, { userId, online });
}
/** Tells the user's friends that its rich presence changed (`base`: base-info the caller already read). */
export async function announcePresenceUpdate(app, userId, known) {
    await ensurePresenceTables(app.db);
    const base = known ?? (await loadBaseInfo(app.db));
    if (!base.richMsgEnabled)
        return;
    await notifyUsers(app, await friendIdsOf(app, userId), PATHS.presence, { userId });
}
//# sourceMappingURL=friend-events.js.map