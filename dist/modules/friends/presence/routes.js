import { configRoutes } from './config-routes.js';
import { userPresenceRoutes } from './user-routes.js';
/** Rich presence endpoints (spec "Friends: rich presence", §7.4). */
export const presenceRoutes = [...configRoutes, ...userPresenceRoutes];
//# sourceMappingURL=routes.js.map