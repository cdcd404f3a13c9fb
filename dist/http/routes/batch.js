import { requestsOf, runBatch } from '../../batch/run-batch.js';
import { runCreateGroup } from '../../batch/create-group.js';
import { dispatch } from '../dispatch.js';
import { ok } from '../route.js';
import { batchSaveRoute } from './batch-save.js';
/**
 * POST /1.1/batch and POST /1.1/batch/save. Items are served by `table`, the table of every
 * other route, with the batch request's own context: the same code, ACL and master key apply
 * to an item as to the same request sent alone.
 */
export function batchRoutes(table, logger) {
    return [
        {
            method: 'POST',
            path: '/1.1/batch',
            handler: async (req) => {
                const requests = requestsOf(req.body);
                const one = (item) => dispatch(table, { ...item, inBatch: true }, () => req.ctx);
                const results = await runBatch(requests, one, (err, index) => logger.error({ err, index }, 'batch item failed with an internal error'), (className, items) => runCreateGroup(req.ctx, className, items, one));
                return ok(results);
            },
        },
        batchSaveRoute(table),
    ];
}
//# sourceMappingURL=batch.js.map