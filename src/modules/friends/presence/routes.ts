import type { Route } from '../../../http/route.ts';

/** Rich presence endpoints. Filled in by the presence work. */
export const presenceRoutes: Route[] = [];
