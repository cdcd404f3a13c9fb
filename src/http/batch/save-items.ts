/**
 * Items of POST /1.1/batch/save as the ObjC and Java SDKs send them (leancloud-behaviour §6.5):
 * `{method: PUT|POST, path, body: {...fields, __internalId, __children?}, params?, new?}`.
 * `__internalId` names the object (its objectId once saved, else a client uuid); several items
 * may name the same object; `__children` lists pointer fields whose targets are saved in the
 * same batch, by their internal id (`cid`).
 */
import { ApiError } from '../../errors/api-error.ts';
import { isValidKeyName, checkClassName } from '../../model/names.ts';
import { normalizeItemPath, saveTargetOf, type SaveTarget } from './batch-path.ts';
import { MAX_BATCH_REQUESTS } from './run-batch.ts';
import { isPlainObject } from '../../model/plain-object.ts';

/** A pointer field to fill with the objectId of an object saved in the same batch. */
export interface SaveChild {
  readonly className: string;
  readonly cid: string;
  readonly key: string;
}

/** One parsed save item. */
export interface SaveItem {
  readonly index: number;
  readonly internalId: string;
  readonly target: SaveTarget;
  /** The body without `__internalId` and `__children`. */
  readonly body: Record<string, unknown>;
  readonly children: readonly SaveChild[];
  readonly query: Readonly<Record<string, unknown>>;
}

/** Longest internal id accepted (uuids are 36 chars, objectIds 24). */
export const MAX_INTERNAL_ID_LENGTH = 128;

function bad(index: number, detail: string): ApiError {
  return new ApiError('invalidJson', `batch/save request #${index}: ${detail}`);
}

function parseChildren(raw: unknown, index: number): SaveChild[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw bad(index, '"__children" must be an array of {className, cid, key}.');
  return raw.map((c) => {
    if (!isPlainObject(c) || typeof c.className !== 'string' || typeof c.cid !== 'string' || typeof c.key !== 'string') {
      throw bad(index, 'every "__children" entry must be {"className", "cid", "key"} strings.');
    }
    if (!isValidKeyName(c.key)) throw new ApiError('invalidKeyName', `batch/save request #${index}: invalid child key ${JSON.stringify(c.key.slice(0, 100))}.`);
    if (c.cid === '' || c.cid.length > MAX_INTERNAL_ID_LENGTH) throw bad(index, 'a child "cid" must be a non-empty id.');
    return { className: checkClassName(c.className), cid: c.cid, key: c.key };
  });
}

/** Parses the body of /1.1/batch/save; any malformed item refuses the whole request (nothing runs). */
export function parseSaveItems(body: unknown): SaveItem[] {
  if (!isPlainObject(body) || !Array.isArray(body.requests)) {
    throw new ApiError('invalidJson', 'A batch/save body must be a JSON object {"requests": [...]}.');
  }
  if (body.requests.length > MAX_BATCH_REQUESTS) {
    throw new ApiError('badRequest', `A batch may carry at most ${MAX_BATCH_REQUESTS} requests; this one has ${body.requests.length}.`);
  }
  return body.requests.map((raw: unknown, index: number): SaveItem => {
    if (!isPlainObject(raw)) throw bad(index, 'must be an object {"method", "path", "body"}.');
    const method = typeof raw.method === 'string' ? raw.method.toUpperCase() : undefined;
    if (method !== 'PUT' && method !== 'POST') throw new ApiError('methodNotAllowed', `batch/save request #${index}: method must be PUT or POST.`);
    if (typeof raw.path !== 'string') throw bad(index, 'has no "path" string.');
    const normalized = normalizeItemPath(raw.path);
    const target = normalized && saveTargetOf(normalized.path);
    if (!normalized || !target) throw new ApiError('notFound', `batch/save request #${index}: ${JSON.stringify(raw.path.slice(0, 200))} is not an object path.`);
    if (raw.body !== undefined && raw.body !== null && !isPlainObject(raw.body)) throw bad(index, '"body" must be an object.');
    if (raw.params !== undefined && raw.params !== null && !isPlainObject(raw.params)) throw bad(index, '"params" must be an object.');
    const { __internalId, __children, ...fields } = (raw.body ?? {}) as Record<string, unknown>;
    const internalId = typeof __internalId === 'string' && __internalId !== '' ? __internalId : target.objectId;
    if (!internalId) throw bad(index, 'the body has no "__internalId" and the path names no object.');
    if (internalId.length > MAX_INTERNAL_ID_LENGTH) throw bad(index, '"__internalId" is too long.');
    return {
      index,
      internalId,
      target,
      body: fields,
      children: parseChildren(__children, index),
      query: { ...normalized.query, ...(raw.params as Record<string, unknown> | undefined) },
    };
  });
}

/** Internal ids a body's pointers name: `{__type: Pointer, cid}` or an objectId (any depth). */
function pointerIds(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) pointerIds(v, out);
  } else if (isPlainObject(value)) {
    if (value.__type === 'Pointer') {
      const id = typeof value.cid === 'string' ? value.cid : value.objectId;
      if (typeof id === 'string') out.add(id);
      return;
    }
    for (const v of Object.values(value)) pointerIds(v, out);
  }
}

/** Every internal id an item points to: its `__children` and the pointers in its body. */
export function dependenciesOf(item: SaveItem): Set<string> {
  const out = new Set(item.children.map((c) => c.cid));
  pointerIds(item.body, out);
  return out;
}

/**
 * Orders items so that an object is created before any item that points to it, through
 * `__children` or a pointer in its body (SDKs already send children first; a hand-written batch
 * may not). Otherwise the order given is kept. A cycle cannot be saved and is refused.
 */
export function saveOrder(items: readonly SaveItem[]): SaveItem[] {
  const first = new Map<string, number>();
  items.forEach((it, i) => {
    if (!first.has(it.internalId)) first.set(it.internalId, i);
  });
  const state = new Uint8Array(items.length); // 0 new, 1 visiting, 2 done
  const out: SaveItem[] = [];
  const visit = (i: number, path: number[]) => {
    if (state[i] === 2) return;
    if (state[i] === 1) throw new ApiError('badRequest', `batch/save: requests ${[...path, i].map((n) => `#${n}`).join(' -> ')} point to each other in a cycle; save one of them first.`);
    state[i] = 1;
    for (const cid of dependenciesOf(items[i])) {
      const j = first.get(cid);
      if (j !== undefined && items[j].internalId !== items[i].internalId) visit(j, [...path, i]);
    }
    state[i] = 2;
    out.push(items[i]);
  };
  for (let i = 0; i < items.length; i++) visit(i, []);
  return out;
}
