import { ApiError } from '../../errors/api-error.js';
import { includeParam, keysParam } from '../../http/key-params.js';
import { findObjects } from '../../objects/find-objects.js';
import { parseLimit, parseSkip } from '../../query/limits.js';
import { checkClassName } from '../../schema/names.js';
import { cqlError } from './cql-error.js';
import { parseCql } from './cql-parser.js';
/**
 * The class query a CQL select stands for, in the REST API's own terms, so it is checked exactly
 * like `GET /1.1/classes/<class>`: keys and include through the same validation, limit by the
 * same rule (default 100, 1..1000), count-only as `limit=0&count=1`.
 */
export function findQueryOf(s) {
    return {
        where: s.where,
        order: s.order,
        limit: s.results ? parseLimit(s.limit) : 0,
        skip: parseSkip(s.skip),
        keys: s.keys ? keysParam({ keys: s.keys.join(',') }) : undefined,
        include: includeParam({ include: s.include.join(',') }),
        count: s.count,
        returnACL: false,
    };
}
/** Reads the `pvalues` parameter: a JSON array (the SDKs send it JSON-encoded in the URL). */
export function parsePvalues(raw) {
    if (raw === undefined || raw === null || raw === '')
        return [];
    let v = raw;
    if (typeof raw === 'string') {
        try {
            v = JSON.parse(raw);
        }
        catch {
            throw new ApiError('invalidJson', "Parameter 'pvalues' is not valid JSON.");
        }
    }
    if (!Array.isArray(v))
        throw new ApiError('invalidJson', "Parameter 'pvalues' must be a JSON array.");
    return v;
}
/** Runs a CQL select as the caller (ACL, class permissions and hidden fields as any query). */
export async function cloudQuery(ctx, cql, pvalues) {
    if (typeof cql !== 'string' || cql.trim() === '')
        cqlError(0, "the parameter 'cql' is missing or empty");
    const statement = parseCql(cql, pvalues);
    const className = checkClassName(statement.className);
    const found = await findObjects(ctx, className, findQueryOf(statement));
    const out = { results: found.results, className };
    if (statement.count)
        out.count = found.count ?? 0;
    return out;
}
//# sourceMappingURL=cloud-query.js.map