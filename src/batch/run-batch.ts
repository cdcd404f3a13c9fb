import { ApiError, isApiError } from '../errors/api-error.ts';
import { isBatchPath, normalizeItemPath } from './batch-path.ts';

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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

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
 * Runs a batch: items in order, one after the other, not in one transaction (as LeanCloud
 * does). Every item gets its own result; an ApiError becomes `{error: {code, error}}` and
 * anything unexpected is reported through `onInternal` and becomes code 1 without details,
 * so one broken item never fails the whole batch.
 */
export async function runBatch(requests: readonly unknown[], execute: ExecuteItem, onInternal: (err: unknown, index: number) => void): Promise<BatchResult[]> {
  const out: BatchResult[] = new Array(requests.length);
  for (let i = 0; i < requests.length; i++) {
    try {
      const res = await execute(parseBatchItem(requests[i], i));
      out[i] = { success: res.body };
    } catch (err) {
      if (isApiError(err)) {
        out[i] = { error: err.toJSON() };
      } else {
        onInternal(err, i);
        out[i] = { error: new ApiError('internal').toJSON() };
      }
    }
  }
  return out;
}
