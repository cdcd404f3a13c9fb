import { ApiError } from '../../errors/api-error.js';
/**
 * Every friends endpoint (presence, realtime, both friend models) answers only when the app
 * setting `richPresenceSync` (the console's "real-time synchronization of rich information") is
 * on, as the original service did. The error names the setting and how to turn it on, so an
 * operator who meets it knows what to do.
 */
export function requireFriendsEnabled(app) {
    if (!app.settings.richPresenceSync)
        throw new ApiError('friendsDisabled');
}
/** The same check as a boolean, for places that cannot throw (the WebSocket upgrade). */
export function friendsEnabled(app) {
    return app.settings.richPresenceSync;
}
//# sourceMappingURL=friends-enabled.js.map