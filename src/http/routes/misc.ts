import { ok, type Route } from '../route.ts';

/** GET /1.1/date: the server time as a Date value. */
export const miscRoutes: Route[] = [
  { method: 'GET', path: '/1.1/date', handler: async () => ok({ __type: 'Date', iso: new Date().toISOString() }) },
];
