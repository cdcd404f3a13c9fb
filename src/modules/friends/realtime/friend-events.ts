/**
 * The two events of the presence side (§7.5), sent to the user's friends only (friendIdsOf) and
 * only when base-info turned them on: online status changes (`onlineMsgEnabled`) and rich
 * presence updates (`richMsgEnabled`, the SDK then fetches the presence again).
 */
import type { AppContext } from '../../../module-api/context.ts';
import { friendIdsOf } from '../friendship/friend-ids.ts';
import { loadBaseInfo, type BaseInfo } from '../presence/presence-config.ts';
import { ensurePresenceTables } from '../presence/presence-tables.ts';
import { notifyUsers } from './notify.ts';

/** Notification paths of the friends WebSocket. */
export const PATHS = {
  online: 'friendship/friend/online',
  presence: 'friendship/rich_presence/update',
  kick: '/session/kick',
} as const;

/** Tells the user's friends that it came online or went offline. */
export async function announceOnline(app: AppContext, userId: string, online: boolean): Promise<void> {
  await ensurePresenceTables(app.db);
  const base = await loadBaseInfo(app.db);
  if (!base.onlineMsgEnabled) return;
  await notifyUsers(app, await friendIdsOf(app, userId), PATHS.online, { userId, online });
}

/** Tells the user's friends that its rich presence changed (`base`: base-info the caller already read). */
export async function announcePresenceUpdate(app: AppContext, userId: string, known?: BaseInfo): Promise<void> {
  await ensurePresenceTables(app.db);
  const base = known ?? (await loadBaseInfo(app.db));
  if (!base.richMsgEnabled) return;
  await notifyUsers(app, await friendIdsOf(app, userId), PATHS.presence, { userId });
}
