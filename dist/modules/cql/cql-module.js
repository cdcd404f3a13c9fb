import { ok } from '../../http/route.js';
import { text } from '../../http/query-params.js';
import { cloudQuery, parsePvalues } from './cloud-query.js';
/**
 * CQL, LeanCloud's SQL-like query language (`GET /1.1/cloudQuery?cql=...&pvalues=[...]`, the JS
 * SDK's `AV.Query.doCloudQuery`). docs/cql.md.
 */
export function cqlModule() {
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
//# sourceMappingURL=cql-module.js.map