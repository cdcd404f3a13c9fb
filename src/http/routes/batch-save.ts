import { runBatchSave } from '../batch/run-batch-save.ts';
import { dispatch } from '../dispatch.ts';
import { ok, type Route } from '../route.ts';
import type { RouteTable } from '../route-table.ts';

/**
 * POST /1.1/batch/save (ObjC and Java SDKs): 200 with an object keyed by internal id, or the
 * error of the first failing item with that error's HTTP status.
 */
export function batchSaveRoute(table: RouteTable): Route {
  return {
    method: 'POST',
    path: '/1.1/batch/save',
    handler: async (req) => ok(await runBatchSave(req.body, (item) => dispatch(table, { ...item, inBatch: true }, () => req.ctx))),
  };
}
