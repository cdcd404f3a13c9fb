import type { LarderModule } from '../../module-api/larder-module.ts';
import { ok, text } from '../../module-api/http.ts';
import { cloudQuery, parsePvalues } from './cloud-query.ts';

/**
 * CQL, LeanCloud's SQL-like query language (`GET /1.1/cloudQuery?cql=...&pvalues=[...]`, the JS
 * SDK's `AV.Query.doCloudQuery`). docs/cql.md.
 */
export function cqlModule(): LarderModule {
  return {
    name: 'cql',
    routes: () => [
      {
        method: 'GET',
        path: '/1.1/cloudQuery',
        handler: async (req) => ok(await cloudQuery(req.ctx, text(req.query, 'cql'), parsePvalues(req.query.pvalues))),
      },
    ],
  };
}
