import { friendshipRoutes } from './friendship/routes.js';
import { presenceRoutes } from './presence/routes.js';
import { mountRealtime } from './realtime/mount.js';
/**
 * The friends service: rich presence, online status over WebSocket, and the two friend models
 * (mutual friends, follow). Everything answers only when the app setting `richPresenceSync` is on.
 */
export function friendsModule() {
    return {
        name: 'friends',
        prefixes: ['/friend'],
        routes: () => [...presenceRoutes, ...friendshipRoutes],
        mount: mountRealtime,
    };
}
//# sourceMappingURL=friends-module.js.map