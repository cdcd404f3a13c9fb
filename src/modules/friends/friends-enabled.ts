import type { AppContext } from '../../module-api/context.ts';
import { friendsSettings } from './friends-settings.ts';
import { friendsError } from './friends-errors.ts';

/**
 * Every friends endpoint (presence, realtime, both friend models) answers only when the app
 * setting `richPresenceSync` (the console's "real-time synchronization of rich information") is
 * on, as the original service did. The error names the setting and how to turn it on, so an
 * operator who meets it knows what to do.
 */
export function requireFriendsEnabled(app: AppContext): void {
  if (!friendsSettings(app).richPresenceSync) throw friendsError('friendsDisabled');
}

/** The same check as a boolean, for places that cannot throw (the WebSocket upgrade). */
export function friendsEnabled(app: AppContext): boolean {
  return friendsSettings(app).richPresenceSync;
}
