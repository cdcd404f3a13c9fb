import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { includeParam, keysParam } from '../../module-api/http.ts';
import { findObjects, type FindQuery, type FindResult, type JsonValue, parseLimit, parseSkip } from '../../module-api/reads.ts';
import { checkClassName } from '../../module-api/data.ts';
import { cqlError } from './cql-error.ts';
import { parseCql, type CqlSelect } from './cql-parser.ts';

/** The answer of `GET /1.1/cloudQuery`: the query's objects, its class, and the count when selected. */
export interface CloudQueryResult {
  results: FindResult['results'];
  className: string;
  count?: number;
}

/**
 * The class query a CQL select stands for, in the REST API's own terms, so it is checked exactly
 * like `GET /1.1/classes/<class>`: keys and include through the same validation, limit by the
 * same rule (default 100, 1..1000), count-only as `limit=0&count=1`.
 */
export function findQueryOf(s: CqlSelect): FindQuery {
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
export function parsePvalues(raw: unknown): JsonValue[] {
  if (raw === undefined || raw === null || raw === '') return [];
  let v: unknown = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch {
      throw new ApiError('invalidJson', "Parameter 'pvalues' is not valid JSON.");
    }
  }
  if (!Array.isArray(v)) throw new ApiError('invalidJson', "Parameter 'pvalues' must be a JSON array.");
  return v as JsonValue[];
}

/** Runs a CQL select as the caller (ACL, class permissions and hidden fields as any query). */
export async function cloudQuery(ctx: RequestContext, cql: unknown, pvalues: readonly JsonValue[]): Promise<CloudQueryResult> {
  if (typeof cql !== 'string' || cql.trim() === '') cqlError(0, "the parameter 'cql' is missing or empty");
  const statement = parseCql(cql, pvalues);
  const className = checkClassName(statement.className);
  const found = await findObjects(ctx, className, findQueryOf(statement));
  const out: CloudQueryResult = { results: found.results, className };
  if (statement.count) out.count = found.count ?? 0;
  return out;
}
