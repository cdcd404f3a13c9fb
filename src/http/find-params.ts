import { parseLimit, parseSkip } from '../query/limits.ts';
import type { FindQuery } from '../objects/find-objects.ts';
import { includeParam, keysParam } from './key-params.ts';
import { flag, json, text } from './query-params.ts';
import type { QueryParams } from './route.ts';

/** Parses the query parameters of a class query (URL strings or batch `params` values). */
export function parseFindQuery(q: QueryParams): FindQuery {
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
