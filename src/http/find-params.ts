import { parseLimit, parseSkip } from '../query/limits.ts';
import { parseInclude } from '../objects/include.ts';
import { parseKeys } from '../objects/project-keys.ts';
import type { FindQuery } from '../objects/find-objects.ts';
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
    keys: parseKeys(text(q, 'keys')),
    include: parseInclude(text(q, 'include')),
    count,
    returnACL: flag(q, 'returnACL'),
  };
}
