import { ApiError, isApiError } from '../errors/api-error.js';
import { isBatchPath, normalizeItemPath } from './batch-path.js';
/**
 * Most requests one batch may carry. LeanCloud enforces none and recommends at most 100; a cap
 * keeps one request from holding a connection for minutes, and 1000 is ten times the
 * recommendation (SDKs send at most 100 per batch).
 */
export const MAX_BATCH_REQUESTS = 1000;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
function isPlainObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** The `requests` array of a batch body (107 when the body is not `{requests: [...]}`). */
export function requestsOf(body) {
    if (!isPlainObject(body) || !Array.isArray(body.requests)) {
        throw new ApiError('invalidJson', 'A batch body must be a JSON object {"requests": [...]}.');
    }
    if (body.requests.length > MAX_BATCH_REQUESTS) {
        throw new ApiError('badRequest', `A batch may carry at most ${MAX_BATCH_REQUESTS} requests; this one has ${body.requests.length}.`);
    }
    return body.requests;
}
/** Validates one raw item; a malformed item is an error for that item only. */
export function parseBatchItem(raw, index) {
    const where = `Batch request #${index}`;
    if (!isPlainObject(raw))
        throw new ApiError('invalidJson', `${where} must be an object {"method", "path", "body"?, "params"?}.`);
    const { method, path, body, params } = raw;
    if (typeof method !== 'string')
        throw new ApiError('invalidJson', `${where} has no "method" string.`);
    const m = method.toUpperCase();
    if (!METHODS.includes(m))
        throw new ApiError('methodNotAllowed', `${where}: method ${JSON.stringify(method.slice(0, 20))} is not allowed; use GET, POST, PUT or DELETE.`);
    if (typeof path !== 'string')
        throw new ApiError('invalidJson', `${where} has no "path" string.`);
    const target = normalizeItemPath(path);
    if (!target)
        throw new ApiError('notFound', `${where}: invalid path ${JSON.stringify(path.slice(0, 200))}.`);
    if (isBatchPath(target.path))
        throw new ApiError('badRequest', `${where}: batches cannot be nested.`);
    if (params !== undefined && params !== null && !isPlainObject(params)) {
        throw new ApiError('invalidJson', `${where}: "params" must be an object of query parameters.`);
    }
    const query = params ? { ...target.query, ...params } : target.query;
    return { method: m, path: target.path, query, body: m === 'GET' ? undefined : body };
}
const CREATE_PATH = /^\/1\.1\/classes\/([A-Za-z][A-Za-z0-9_]*)$/;
/** The class of a plain create in a user class (the generic create path), else undefined. */
export function createClassOf(item) {
    if (item.method !== 'POST')
        return undefined;
    const m = CREATE_PATH.exec(item.path);
    // `files` is the alias of the built-in _File class, which has its own create rules.
    return m && m[1] !== 'files' ? m[1] : undefined;
}
/**
 * Runs a batch: items in order, not in one transaction (as LeanCloud does). Every item gets
 * its own result; an ApiError becomes `{error: {code, error}}` and anything unexpected is
 * reported through `onInternal` and becomes code 1 without details, so one broken item never
 * fails the whole batch. Consecutive creates of one class go to `executeCreates` together.
 */
export async function runBatch(requests, execute, onInternal, executeCreates) {
    const out = new Array(requests.length);
    const fail = (err, i) => {
        if (isApiError(err)) {
            out[i] = { error: err.toJSON() };
        }
        else {
            onInternal(err, i);
            out[i] = { error: new ApiError('internal').toJSON() };
        }
    };
    const items = requests.map((raw, i) => {
        try {
            return parseBatchItem(raw, i);
        }
        catch (err) {
            fail(err, i);
            return undefined;
        }
    });
    for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (!item)
            continue;
        const cls = executeCreates ? createClassOf(item) : undefined;
        if (cls && executeCreates) {
            let end = i + 1;
            while (end < items.length && items[end] && createClassOf(items[end]) === cls)
                end++;
            if (end - i > 1) {
                try {
                    const results = await executeCreates(cls, items.slice(i, end));
                    results.forEach((r, k) => (out[i + k] = r));
                }
                catch (err) {
                    for (let k = i; k < end; k++)
                        fail(err, k);
                }
                i = end - 1;
                continue;
            }
        }
        try {
            const res = await execute(item);
            out[i] = { success: res.body };
        }
        catch (err) {
            fail(err, i);
        }
    }
    return out;
}
//# sourceMappingURL=run-batch.js.map