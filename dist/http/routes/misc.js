import { ok } from '../route.js';
/** GET /1.1/date: the server time as a Date value. */
export const miscRoutes = [
    { method: 'GET', path: '/1.1/date', handler: async () => ok({ __type: 'Date', iso: new Date().toISOString() }) },
];
//# sourceMappingURL=misc.js.map