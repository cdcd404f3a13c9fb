import { AnswerBudget, batchAnswerJson } from '../batch/answer-budget.ts';
import { requestsOf, runBatch, type BatchItem } from '../batch/run-batch.ts';
import { RawJson } from '../../objects/raw-json.ts';
import { runCreateGroup } from '../batch/create-group.ts';
import type { Logger } from '../../log.ts';
import { dispatch } from '../dispatch.ts';
import { ok, type Route } from '../route.ts';
import type { RouteTable } from '../route-table.ts';
import { batchSaveRoute } from './batch-save.ts';

/**
 * POST /1.1/batch and POST /1.1/batch/save. Items are served by `table`, the table of every
 * other route, with the batch request's own context: the same code, ACL and master key apply
 * to an item as to the same request sent alone.
 */
export function batchRoutes(table: RouteTable, logger: Logger): Route[] {
  return [
    {
      method: 'POST',
      path: '/1.1/batch',
      handler: async (req) => {
        const requests = requestsOf(req.body);
        const one = (item: BatchItem) => dispatch(table, { ...item, inBatch: true }, () => req.ctx);
        const results = await runBatch(
          requests,
          one,
          (err, index) => logger.error({ err, index }, 'batch item failed with an internal error'),
          (className, items) => runCreateGroup(req.ctx, className, items, one),
          new AnswerBudget(),
        );
        return ok(new RawJson(batchAnswerJson(results)));
      },
    },
    batchSaveRoute(table),
  ];
}
