import { parseLimit, parseSkip } from '../query/limits.js';
import { includeParam, keysParam } from './key-params.js';
import { flag, json, text } from './query-params.js';
/** Parses the query parameters of a class query (URL strings or batch `params` values). */
export function parseFindQuery(q) {
    const count = flag(q, 'count');
    return {
        where: json(q, 'where'),
        order: text(q, 'order'),
        limit: parseLimit(q.limit, { count }),
        skip: parseSkip(q.skip),
        keys: keysParam(q),
        include: includeParam(q),
        count,
        returnACL: flag(q, 'returnACL'),
    };
}
//# sourceMappingURL=find-params.js.map