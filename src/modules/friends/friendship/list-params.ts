import { ApiError } from '../../../module-api/errors.ts';
import { text, type QueryParams } from '../../../module-api/http.ts';

/** Page size of the /friend/v2 lists when none is given (TDS: 50). */
export const DEFAULT_PAGE = 50;
/** Largest page of the /friend/v2 lists (TDS: 500). */
export const MAX_PAGE = 500;

/** How a /friend/v2 list is ordered. */
export type ListSort =
  | { kind: 'recent' }
  | { kind: 'online' }
  | { kind: 'presence'; field: string };

/** A parsed page request of a /friend/v2 list. */
export interface ListParams {
  readonly offset: number;
  readonly size: number;
  readonly sort: ListSort;
  readonly lang?: string;
}

function integer(name: string, raw: string, min: number): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min) throw new ApiError('invalidQuery', `${name} must be an integer of at least ${min}, got ${JSON.stringify(raw.slice(0, 40))}.`);
  return Number(raw);
}

const PRESENCE_SORT = /^rich_presence_([A-Za-z0-9_]{1,128})$/;

/**
 * Page parameters as the TDS SDK sends them (`limit`, `skip` = the previous page's `nextSkip`,
 * `sort_field`), with the names of the TDS docs as aliases (`size`, `cursor`, `sort`). Sizes
 * above 500 are refused rather than cut, so a client never silently misses rows.
 */
export function parseListParams(q: QueryParams): ListParams {
  const sizeRaw = text(q, 'limit') ?? text(q, 'size');
  const size = sizeRaw === undefined || sizeRaw === '' ? DEFAULT_PAGE : integer('limit', sizeRaw, 1);
  if (size > MAX_PAGE) throw new ApiError('invalidQuery', `limit may be at most ${MAX_PAGE}.`);
  const cursor = text(q, 'skip') ?? text(q, 'cursor');
  const offset = cursor === undefined || cursor === '' ? 0 : integer('skip', cursor, 0);
  const sortRaw = text(q, 'sort_field') ?? text(q, 'sort');
  let sort: ListSort = { kind: 'recent' };
  if (sortRaw === 'online') sort = { kind: 'online' };
  else if (sortRaw !== undefined && sortRaw !== '') {
    const m = PRESENCE_SORT.exec(sortRaw);
    if (!m) throw new ApiError('invalidQuery', `sort_field must be 'online' or 'rich_presence_<field>', got ${JSON.stringify(sortRaw.slice(0, 80))}.`);
    sort = { kind: 'presence', field: m[1] };
  }
  return { offset, size, sort, lang: text(q, 'lang') };
}
