import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { encodeRow, type WireObject } from '../objects/encode.ts';
import { expandFiles } from '../objects/expand-files.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { projectKeys, type KeySelection } from '../objects/project-keys.ts';
import { accessOf, planQuery } from '../plan/index.ts';
import { assertNever, type Condition } from '../query/ast.ts';
import { sql } from '../sql/fragment.ts';
import { signCursor, verifyCursor } from './scan-cursor.ts';
import { afterCursor, resolveScanKey, scanOrder } from './scan-key.ts';

/** Rows per scan page when `limit` is not given. */
export const DEFAULT_SCAN_LIMIT = 100;
/** Largest scan page. */
export const MAX_SCAN_LIMIT = 1000;

/**
 * Resolves a scan's `limit`: absent gives 100; otherwise it must be an integer from 1 to 1000.
 * Unlike class queries (where an out-of-range limit quietly becomes 100) a scan refuses it with
 * 102: a scan pages through a whole class, and a silently different page size is a surprise.
 */
export function parseScanLimit(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_SCAN_LIMIT;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_SCAN_LIMIT) {
    throw new ApiError('invalidQuery', `Scan limit must be an integer from 1 to ${MAX_SCAN_LIMIT}, got ${JSON.stringify(raw).slice(0, 40)}.`);
  }
  return n;
}

/** A parsed scan request. */
export interface ScanQuery {
  where: unknown;
  /** 1..1000. */
  limit: number;
  /** scan_key as given (`-key` descends); default objectId. */
  scanKey?: string;
  cursor?: string;
  keys?: KeySelection;
  returnACL: boolean;
}

/** The response of a scan page. */
export interface ScanPage {
  results: WireObject[];
  /** null on the last page. */
  cursor: string | null;
}

/** True when the condition constrains the top-level field `name` (inner queries are other classes). */
export function mentionsField(cond: Condition, name: string): boolean {
  switch (cond.kind) {
    case 'and':
    case 'or':
      return cond.conditions.some((c) => mentionsField(c, name));
    case 'relatedTo':
      return false;
    case 'compare':
    case 'in':
    case 'all':
    case 'size':
    case 'exists':
    case 'regex':
    case 'inQuery':
    case 'select':
    case 'near':
    case 'box':
      return cond.field[0] === name;
    default:
      return assertNever(cond);
  }
}

/**
 * One page of a scan (master key only: no ACL filter). Pages are keyset pages ordered by the
 * scan key then objectId; one row more than the limit is read to know whether a next page
 * exists, so the last page always says `cursor: null`. Internal files (rows of _File with a
 * `key`) come without their url, as the spec says.
 */
export async function scanObjects(ctx: RequestContext, className: string, q: ScanQuery, now: () => number = Date.now): Promise<ScanPage> {
  if (!ctx.master) throw new ApiError('masterKeyRequired', 'Scan requires the master key.');
  const schema = await ctx.app.classes.find(className);
  if (!schema) return { results: [], cursor: null };
  const key = resolveScanKey(q.scanKey, schema);
  const scanKey = `${key.descending ? '-' : ''}${key.name}`;
  const { table, filter, cond } = await planQuery(await accessOf(ctx), schema, { where: q.where });
  if (q.scanKey !== undefined && q.scanKey.trim() !== '' && mentionsField(cond, key.name)) {
    throw new ApiError('invalidQuery', `The scan_key '${key.name}' must not appear in where; the scan pages by it.`);
  }
  const secret = ctx.app.keys.serverSecret;
  const after = q.cursor ? verifyCursor(secret, q.cursor, { className, scanKey, now: now() }) : undefined;
  const resume = after ? afterCursor(key, after.lastValue, after.lastId) : sql`TRUE`;
  const rows = await ctx.app.db.query<ObjectRow & { _scan_value: string | null }>(
    sql`SELECT ${OBJECT_COLUMNS}, ${key.text} AS _scan_value FROM ${table}
      WHERE (${filter}) AND ${resume} ORDER BY ${scanOrder(key)} LIMIT ${q.limit + 1}`,
  );
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const last = page[page.length - 1];
  const cursor = more && last ? signCursor(secret, { className, scanKey, lastValue: last._scan_value, lastId: last.objectId, issuedAt: now() }) : null;
  const objects = page.map((r) => {
    const o = encodeRow(r, { className, withAcl: q.returnACL, master: true });
    if (className === '_File' && typeof o.key === 'string') delete o.url;
    return o;
  });
  await expandFiles(ctx.app.db, objects);
  return { results: q.keys ? objects.map((o) => projectKeys(o, q.keys)) : objects, cursor };
}
