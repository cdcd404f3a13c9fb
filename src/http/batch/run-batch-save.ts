import { ApiError } from '../../errors/api-error.ts';
import { isValidObjectId } from '../../model/object-id.ts';
import { saveOrder, parseSaveItems, type SaveItem } from './save-items.ts';
import { isPlainObject } from '../../model/plain-object.ts';

/** Writes one object through the route table: POST to a collection or PUT to an object. */
export type ExecuteSave = (req: { method: 'POST' | 'PUT'; path: string; query: Readonly<Record<string, unknown>>; body: unknown }) => Promise<{ body: unknown }>;

/** The response of /1.1/batch/save: internal id -> that object's merged results. */
export type SaveResults = Record<string, Record<string, unknown>>;

/** Resolves a child's internal id to an objectId: created in this batch, or already saved. */
function resolveId(cid: string, created: ReadonlyMap<string, string>, pending: ReadonlySet<string>, index: number): string {
  const id = created.get(cid);
  if (id) return id;
  if (pending.has(cid) || !isValidObjectId(cid)) {
    throw new ApiError('invalidPointer', `batch/save request #${index}: the child '${cid.slice(0, 64)}' was not saved before it is pointed to.`);
  }
  return cid;
}

/**
 * Replaces pointers to objects created earlier in this batch: `{__type: Pointer, className,
 * cid}` and pointers whose objectId is a batch internal id get the created objectId. Works
 * through arrays and __op arguments (AddRelation objects, Add lists).
 */
function substitute(value: unknown, created: ReadonlyMap<string, string>, pending: ReadonlySet<string>, index: number): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, created, pending, index));
  if (!isPlainObject(value)) return value;
  if (value.__type === 'Pointer') {
    if (typeof value.cid === 'string') {
      const { cid, ...rest } = value;
      return { ...rest, objectId: resolveId(cid, created, pending, index) };
    }
    if (typeof value.objectId === 'string' && created.has(value.objectId)) return { ...value, objectId: created.get(value.objectId) };
    return value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = substitute(v, created, pending, index);
  return out;
}

/**
 * Runs /1.1/batch/save. Items run one at a time, children before the objects pointing to them;
 * the first item for an internal id that names no saved object creates it and later items for
 * that id update it. Each parent field named in `__children` is set to a Pointer to the child's
 * objectId. Not transactional, like /1.1/batch: the first failing item stops the batch and its
 * error is the response, while the items before it stay applied.
 */
export async function runBatchSave(body: unknown, execute: ExecuteSave): Promise<SaveResults> {
  const items: SaveItem[] = saveOrder(parseSaveItems(body));
  const created = new Map<string, string>();
  const pending = new Set(items.filter((it) => !it.target.objectId).map((it) => it.internalId));
  const results: SaveResults = {};
  for (const it of items) {
    const fields = substitute(it.body, created, pending, it.index) as Record<string, unknown>;
    for (const c of it.children) {
      fields[c.key] = { __type: 'Pointer', className: c.className, objectId: resolveId(c.cid, created, pending, it.index) };
    }
    const objectId = it.target.objectId ?? created.get(it.internalId);
    let res: { body: unknown };
    if (objectId) {
      res = await execute({ method: 'PUT', path: `${it.target.collection}/${encodeURIComponent(objectId)}`, query: it.query, body: fields });
    } else {
      res = await execute({ method: 'POST', path: it.target.collection, query: it.query, body: fields });
      const newId = isPlainObject(res.body) && typeof res.body.objectId === 'string' ? res.body.objectId : undefined;
      if (!newId) throw new Error(`batch/save: create of request #${it.index} returned no objectId`);
      created.set(it.internalId, newId);
      pending.delete(it.internalId);
    }
    results[it.internalId] = { ...results[it.internalId], ...(isPlainObject(res.body) ? res.body : {}) };
  }
  return results;
}
