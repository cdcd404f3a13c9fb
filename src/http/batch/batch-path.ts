/**
 * Paths of batch items. SDKs send them with the API version prefix (`/1.1/classes/Post`), some
 * older ones with `/1/`, hand-written requests sometimes without any; all three address the same
 * route. A query string in the path is honoured like a standalone request's.
 */

/** The version prefix every route of the table carries. */
export const API_PREFIX = '/1.1';

/** An item path split into the route-table path and its query-string parameters. */
export interface ItemPath {
  /** Always starts with /1.1/. */
  readonly path: string;
  /** Parameters from a `?query` part of the path (strings, as in a URL). */
  readonly query: Record<string, string>;
}

/** Normalises a batch item path; undefined when it is not a usable path. */
export function normalizeItemPath(raw: string): ItemPath | undefined {
  const q = raw.indexOf('?');
  let path = q >= 0 ? raw.slice(0, q) : raw;
  const query: Record<string, string> = {};
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(raw.slice(q + 1))) query[k] = v;
  }
  if (!path.startsWith('/')) path = `/${path}`;
  if (!path.startsWith('/1.1/') && !path.startsWith('/1/')) path = API_PREFIX + path;
  path = canonicalApiPath(path);
  if (path === API_PREFIX || path === `${API_PREFIX}/`) return undefined;
  return { path, query };
}

/** The API under the /1/ prefix of older SDKs (AVOS Cloud era) is the same as under /1.1/. */
export function canonicalApiPath(path: string): string {
  return path.startsWith('/1/') ? `${API_PREFIX}/${path.slice(3)}` : path;
}

/** True for /1.1/batch and /1.1/batch/save: batches do not nest. */
export function isBatchPath(path: string): boolean {
  return path === '/1.1/batch' || path.startsWith('/1.1/batch/');
}

/** Where a save item writes: the collection path, and the objectId when the path names one. */
export interface SaveTarget {
  /** e.g. /1.1/classes/Post or /1.1/users */
  readonly collection: string;
  readonly objectId?: string;
}

/**
 * Splits an object path as ObjC and Java SDKs build them for /1.1/batch/save:
 * `/1.1/classes/<C>[/<id>]`, or a special collection such as `/1.1/users[/<id>]`.
 */
export function saveTargetOf(path: string): SaveTarget | undefined {
  const segs = path.slice(API_PREFIX.length + 1).split('/');
  if (segs.some((s) => s === '')) return undefined;
  const collectionLength = segs[0] === 'classes' ? 2 : 1;
  if (segs.length === collectionLength) return { collection: `${API_PREFIX}/${segs.join('/')}` };
  if (segs.length === collectionLength + 1) {
    return { collection: `${API_PREFIX}/${segs.slice(0, collectionLength).join('/')}`, objectId: segs[collectionLength] };
  }
  return undefined;
}
