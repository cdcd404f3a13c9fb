import { ApiError, isApiError } from '../../errors/api-error.ts';
import type { AnswerBudget } from './answer-budget.ts';
import { isBatchPath, normalizeItemPath } from './batch-path.ts';
import { isClassName } from '../../model/names.ts';
import { isPlainObject } from '../../model/plain-object.ts';

/**
 * Most requests one batch may carry. LeanCloud enforces none and recommends at most 100; a cap
 * keeps one request from holding a connection for minutes, and 1000 is ten times the
 * recommendation (SDKs send at most 100 per batch).
 */
export const MAX_BATCH_REQUESTS = 1000;

/** Methods a batch item may use. */
export type BatchMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'DELETE'];

/** One valid batch item, ready to dispatch. */
export interface BatchItem {
  readonly method: BatchMethod;
  /** Normalised route-table path (/1.1/...). */
  readonly path: string;
  /** Query parameters: the path's query string, then `params` (JSON values) on top. */
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** The outcome of one item, as the response array holds it. */
export type BatchResult = { success: unknown } | { error: { code: number; error: string } };

/** Runs one item through the same route table as a standalone request. */
export type ExecuteItem = (item: BatchItem) => Promise<{ body: unknown }>;

/** The `requests` array of a batch body (107 when the body is not `{requests: [...]}`). */
export function requestsOf(body: unknown): unknown[] {
  if (!isPlainObject(body) || !Array.isArray(body.requests)) {
    throw new ApiError('invalidJson', 'A batch body must be a JSON object {"requests": [...]}.');
  }
  if (body.requests.length > MAX_BATCH_REQUESTS) {
    throw new ApiError('badRequest', `A batch may carry at most ${MAX_BATCH_REQUESTS} requests; this one has ${body.requests.length}.`);
  }
  return body.requests;
}

/** Validates one raw item; a malformed item is an error for that item only. */
export function parseBatchItem(raw: unknown, index: number): BatchItem {
  const where = `Batch request #${index}`;
  if (!isPlainObject(raw)) throw new ApiError('invalidJson', `${where} must be an object {"method", "path", "body"?, "params"?}.`);
  const { method, path, body, params } = raw;
  if (typeof method !== 'string') throw new ApiError('invalidJson', `${where} has no "method" string.`);
  const m = method.toUpperCase();
  if (!METHODS.includes(m)) throw new ApiError('methodNotAllowed', `${where}: method ${JSON.stringify(method.slice(0, 20))} is not allowed; use GET, POST, PUT or DELETE.`);
  if (typeof path !== 'string') throw new ApiError('invalidJson', `${where} has no "path" string.`);
  const target = normalizeItemPath(path);
  if (!target) throw new ApiError('notFound', `${where}: invalid path ${JSON.stringify(path.slice(0, 200))}.`);
  if (isBatchPath(target.path)) throw new ApiError('badRequest', `${where}: batches cannot be nested.`);
  if (params !== undefined && params !== null && !isPlainObject(params)) {
    throw new ApiError('invalidJson', `${where}: "params" must be an object of query parameters.`);
  }
  const query = params ? { ...target.query, ...params } : target.query;
  return { method: m as BatchMethod, path: target.path, query, body: m === 'GET' ? undefined : body };
}

/**
 * Runs several creates of one class together (one multi-row insert) and returns one result per
 * item, in order. Used for runs of consecutive creates, the common shape of saveAll.
 */
export type ExecuteCreates = (className: string, items: readonly BatchItem[]) => Promise<BatchResult[]>;

const CREATE_PATH = /^\/1\.1\/classes\/([^/]+)$/;

/** The class of a plain create in a user class (the generic create path), else undefined. */
export function createClassOf(item: BatchItem): string | undefined {
  if (item.method !== 'POST') return undefined;
  const m = CREATE_PATH.exec(item.path);
  // `files` is the alias of the built-in _File class, which has its own create rules.
  return m && m[1] !== 'files' && isClassName(m[1]) && !m[1].startsWith('_') ? m[1] : undefined;
}

/**
 * Runs a batch: items in order, not in one transaction (as LeanCloud does). Every item gets
 * its own result; an ApiError becomes `{error: {code, error}}` and anything unexpected is
 * reported through `onInternal` and becomes code 1 without details, so one broken item never
 * fails the whole batch. Consecutive creates of one class go to `executeCreates` together.
 */
export async function runBatch(
  requests: readonly unknown[],
  execute: ExecuteItem,
  onInternal: (err: unknown, index: number) => void,
  executeCreates?: ExecuteCreates,
  budget?: AnswerBudget,
): Promise<BatchResult[]> {
  const out: BatchResult[] = new Array(requests.length);
  const fail = (err: unknown, i: number) => {
    if (isApiError(err)) {
      out[i] = { error: err.toJSON() };
    } else {
      onInternal(err, i);
      out[i] = { error: new ApiError('internal').toJSON() };
    }
    budget?.note(out[i]);
  };
  // With a budget, each success becomes JSON text at once and is counted (answer-budget.ts).
  const success = (body: unknown): BatchResult => ({ success: budget ? budget.take(body) : body });
  const items: (BatchItem | undefined)[] = requests.map((raw, i) => {
    try {
      return parseBatchItem(raw, i);
    } catch (err) {
      fail(err, i);
      return undefined;
    }
  });
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!item) continue;
    const cls = executeCreates ? createClassOf(item) : undefined;
    if (cls && executeCreates) {
      let end = i + 1;
      while (end < items.length && items[end] && createClassOf(items[end] as BatchItem) === cls) end++;
      if (end - i > 1) {
        try {
          budget?.check();
          const results = await executeCreates(cls, items.slice(i, end) as BatchItem[]);
          results.forEach((r, k) => {
            out[i + k] = r;
            budget?.note(r);
          });
        } catch (err) {
          for (let k = i; k < end; k++) fail(err, k);
        }
        i = end - 1;
        continue;
      }
    }
    try {
      budget?.check();
      const res = await execute(item);
      out[i] = success(res.body);
    } catch (err) {
      fail(err, i);
    }
  }
  return out;
}
