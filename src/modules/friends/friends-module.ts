import type { LarderModule } from '../../module-api/larder-module.ts';
import { friendshipRoutes } from './friendship/routes.ts';
import { presenceRoutes } from './presence/routes.ts';
import { mountRealtime } from './realtime/mount.ts';

/**
 * The friends service: rich presence, online status over WebSocket, and the two friend models
 * (mutual friends, follow). Everything answers only when the app setting `richPresenceSync` is on.
 */
export function friendsModule(): LarderModule {
  return {
    name: 'friends',
    prefixes: ['/friend'],
    routes: () => [...presenceRoutes, ...friendshipRoutes],
    mount: mountRealtime,
  };
}
