import type { Route } from '../../../http/route.ts';

/** Friend-model endpoints (mutual and follow). Filled in by the friendship work. */
export const friendshipRoutes: Route[] = [];
