import type { Route } from '../../../module-api/http.ts';
import { configRoutes } from './config-routes.ts';
import { userPresenceRoutes } from './user-routes.ts';

/** Rich presence endpoints (spec "Friends: rich presence", §7.4). */
export const presenceRoutes: Route[] = [...configRoutes, ...userPresenceRoutes];
