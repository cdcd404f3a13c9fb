/**
 * What `larder sync` reads from the source, on top of the GET-only SourceClient: the start-up
 * check, the schemas, scan pages and relation membership. Every answer is checked for the shape
 * the API documents, so a server that is not LeanCloud or Larder is caught with a clear message
 * rather than copied as garbage.
 */
import { SourceError, type SourceClient } from './sync-source.ts';
import { isPlainObject as isRecord } from '../model/plain-object.ts';

/** A field as GET /1.1/schemas describes it. */
export interface SourceField {
  type: string;
  className?: string;
}

/** className -> field -> type. */
export type SourceSchemas = Map<string, Record<string, SourceField>>;

/** One object as the API returns it (REST wire form). */
export type SourceObject = Record<string, unknown> & { objectId: string };

/** A page of a scan. */
export interface ScanPage {
  results: SourceObject[];
  cursor: string | null;
}

function notTheApi(what: string, got: unknown): SourceError {
  return new SourceError(`${what} answered ${JSON.stringify(got).slice(0, 120)}, which is not what LeanCloud or Larder answer. Is --from the right server?`);
}

/**
 * Checks the source before anything else: GET /1.1/date with the app key (a bad app id or key
 * fails here), then returns the source's clock, which dates the start of a full copy (the
 * incremental rounds continue from it, so the two machines' clocks never need to agree).
 */
export async function sourceDate(client: SourceClient, master = true): Promise<Date> {
  const body = await client.get('date', {}, master);
  const iso = body.__type === 'Date' && typeof body.iso === 'string' ? body.iso : undefined;
  const d = iso ? new Date(iso) : undefined;
  if (!d || Number.isNaN(d.getTime())) throw notTheApi('GET /1.1/date', body);
  return d;
}

/** GET /1.1/schemas (master): every class with its fields. */
export async function readSchemas(client: SourceClient): Promise<SourceSchemas> {
  const body = await client.get('schemas');
  const out: SourceSchemas = new Map();
  for (const [name, fields] of Object.entries(body)) {
    if (!isRecord(fields)) throw notTheApi('GET /1.1/schemas', body);
    const parsed: Record<string, SourceField> = {};
    for (const [field, f] of Object.entries(fields)) {
      if (!isRecord(f) || typeof f.type !== 'string') continue;
      parsed[field] = typeof f.className === 'string' ? { type: f.type, className: f.className } : { type: f.type };
    }
    out.set(name, parsed);
  }
  return out;
}

function parseObjects(what: string, results: unknown): SourceObject[] {
  if (!Array.isArray(results)) throw notTheApi(what, results);
  return results.map((r) => {
    if (!isRecord(r) || typeof r.objectId !== 'string') throw notTheApi(what, r);
    return r as SourceObject;
  });
}

/** Options of one scan request. */
export interface ScanRequest {
  where?: object;
  cursor?: string;
  limit: number;
  /** e.g. 'objectId' for the id reconciliation. */
  keys?: string;
}

/**
 * One page of GET /1.1/scan/classes/<Class> (master only), ordered by objectId. `returnACL` is
 * asked for: like LeanCloud, Larder leaves ACLs out of query answers unless asked.
 */
export async function scanPage(client: SourceClient, className: string, req: ScanRequest): Promise<ScanPage> {
  const path = `scan/classes/${encodeURIComponent(className)}`;
  const body = await client.get(path, { limit: req.limit, where: req.where, cursor: req.cursor, keys: req.keys, returnACL: req.keys ? undefined : 'true' });
  const cursor = body.cursor;
  if (!(cursor === null || cursor === undefined || typeof cursor === 'string')) throw notTheApi(`GET /1.1/${path}`, body);
  return { results: parseObjects(`GET /1.1/${path}`, body.results), cursor: typeof cursor === 'string' && cursor !== '' ? cursor : null };
}

/** Most ids one relation query returns (the API's query limit). */
const RELATION_PAGE = 1000;

/**
 * Every objectId in relation `key` of one owner object: a `$relatedTo` query on the target
 * class, paged by objectId (`order=objectId` and `objectId > last`), since scan may not take
 * `$relatedTo`. One request per 1,000 members, and at least one per owner object: this is the
 * expensive part of a sync (documented in docs/migrating-from-leancloud.md).
 */
export async function relatedIds(client: SourceClient, owner: { className: string; objectId: string }, key: string, targetClass: string): Promise<string[]> {
  const ids: string[] = [];
  const path = `classes/${encodeURIComponent(targetClass)}`;
  const related = { $relatedTo: { object: { __type: 'Pointer', className: owner.className, objectId: owner.objectId }, key } };
  for (let after: string | undefined; ; ) {
    const where = after === undefined ? related : { ...related, objectId: { $gt: after } };
    const body = await client.get(path, { where, order: 'objectId', limit: RELATION_PAGE, keys: 'objectId' });
    const page = parseObjects(`GET /1.1/${path}`, body.results);
    for (const o of page) ids.push(o.objectId);
    if (page.length < RELATION_PAGE) return ids;
    after = page[page.length - 1].objectId;
  }
}
