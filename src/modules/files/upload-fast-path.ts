/**
 * PUT <upload_url> on local storage, answered before Fastify routes it (issue 9): the middle
 * request of every SDK upload, whose routing, hooks and reply machinery cost CPU per file next
 * to the bytes themselves (docs/benchmarks.md, Files). The request goes through the route's
 * own code (files-http.ts `putUpload`: declared length, token claim, store, commit, release on
 * failure), its errors through the server's errorBody, and the answer is written as the route
 * writes it (writeJson: the same headers, Connection: close when the body was left unread,
 * the same metrics), so the two cannot differ; test/integration/files-fast-path.test.ts sends
 * both the same requests. Anything unusual goes to Fastify before a byte is read: another
 * method or path, a token with other characters or longer than tokens are, a query string, no
 * content type (Fastify reads such a body as none), a chunked or compressed body.
 */
import type { Readable } from 'node:stream';
import type { Logger } from '../../module-api/context.ts';
import { errorBody, logUnexpected, routeFamily, writeJson, type AnswerMetrics, type PreRoute } from '../../module-api/http.ts';
import type { FilesService } from './files-service.ts';
import { putUpload, UPLOAD_PATH } from './files-http.ts';

/** `/larder/upload/<token>`: the characters of newUploadToken's tokens (file-key.ts), at most 200 (the route's own limit). */
const UPLOAD = /^\/larder\/upload\/([A-Za-z0-9]{1,200})$/;

/** A declared body length: digits only. */
const LENGTH = /^\d{1,15}$/;

/** The metrics family the route's answers are counted under (observability.ts), from its pattern. */
const FAMILY = routeFamily(`${UPLOAD_PATH}/:token`, UPLOAD_PATH, new Set());

/** The pre-routing handler of PUT <upload_url>. */
export function uploadFastPath(svc: FilesService, logger: Logger): PreRoute {
  return (req, res) => {
    if (req.method !== 'PUT') return false;
    const found = UPLOAD.exec(req.url ?? '');
    if (!found) return false;
    const h = req.headers;
    if (h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined || h['content-type'] === undefined) return false;
    const declared = h['content-length'];
    if (declared === undefined || !LENGTH.test(declared)) return false;
    const metrics: AnswerMetrics = { family: FAMILY, method: 'PUT', started: performance.now() };
    let close = false;
    const closeAfter = () => {
      close = true;
    };
    putUpload(svc, found[1], h, req as Readable, closeAfter).then(
      // Python and Go SDKs require exactly 200.
      () => writeJson(res, 200, '{}', undefined, close, metrics),
      (error: unknown) => {
        const { status, body } = errorBody(error, (e) => logUnexpected(logger, e));
        // A client that left gets no answer; writing to its closed socket does nothing.
        writeJson(res, status, JSON.stringify(body), undefined, close, metrics);
      },
    );
    return true;
  };
}
