import { runBatchSave } from '../../batch/run-batch-save.js';
import { dispatch } from '../dispatch.js';
import { ok } from '../route.js';
/**
 * POST /1.1/batch/save (ObjC and Java SDKs): 200 with an object keyed by internal id, or the
 * error of the first failing item with that error's HTTP status.
 */
export function batchSaveRoute(table) {
    return {
        method: 'POST',
        path: '/1.1/batch/save',
        handler: async (req) => ok(await runBatchSave(req.body, (item) => dispatch(table, { ...item, inBatch: true }, () => req.ctx))),
    };
}
//# sourceMappingURL=batch-save.js.map