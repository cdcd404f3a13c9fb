/**
 * The common object API requests, answered before Fastify routes them (issue 16): GET, POST,
 * PUT and DELETE of `/1.1/classes/<class>[/<id>]`, `/1.1/users[/<id>|/me]`, `/1.1/roles[/<id>]`,
 * `/1.1/login`, `/1.1/batch`, and the JSON requests of a file upload, `/1.1/fileTokens` and
 * `/1.1/fileCallback` (and the same under `/1/`). Fastify's routing, hooks, body
 * parser and reply machinery cost about a quarter of the server's CPU on a short request
 * (docs/benchmarks.md, "An API fast path before Fastify"), more than some handlers.
 *
 * The request goes through the route's own code (api-request.ts: fallback body, keys, limits,
 * dispatch), its body through the route's parser (parseJsonBody, the same limit), its errors
 * through the route's errorBody, and the answer is written as the route writes it
 * (api-fast-reply.ts), so the two cannot differ. Anything unusual goes to Fastify before a
 * byte is read: other paths or methods, percent-encoded or odd characters, a body that is not
 * plain JSON with a declared length within the limit (text/plain fallback, chunked,
 * compressed). After dispatch, answers it does not write (compressible ones the client may get
 * compressed, bodiless or streamed ones) go to Fastify with the outcome attached (api-handoff.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import { answerApi, type ApiCall, type ApiServing } from './api-request.ts';
import { handOff, type HandedOff, type Settled } from './api-handoff.ts';
import { COMPRESS_THRESHOLD, wireText, writeJson, type AnswerMetrics } from './api-fast-reply.ts';
import { errorBody } from './error-body.ts';
import type { HttpPolicy } from './http-policy.ts';
import { parseJsonBody } from './json-body.ts';
import type { PreRoute } from './pre-routing.ts';
import { parseQueryString } from './query-string.ts';
import { routeFamily } from './route-family.ts';

/**
 * Paths taken: plain segments only (no `%`, `.`, `#`, empty or trailing segment), short enough
 * that Fastify's router takes them to the API route as they are; any query string.
 */
const PATH = /^\/1(?:\.1)?\/(?:classes\/[A-Za-z_][A-Za-z0-9_]{0,127}(?:\/[A-Za-z0-9_,-]{1,512})?|users(?:\/[A-Za-z0-9_-]{1,128})?|roles(?:\/[A-Za-z0-9_-]{1,128})?|login|batch|fileTokens|fileCallback)(?:\?[^#]*)?$/;

/** The body types read here: JSON as the SDKs send it. */
const JSON_TYPE = /^application\/json(?:;\s?charset=utf-8)?$/i;

/** A declared body length: digits only. */
const LENGTH = /^\d{1,10}$/;

/** What the fast path needs besides serving (the server's settings). */
export interface ApiFastPathSettings extends ApiServing {
  policy: HttpPolicy;
  requestLog: boolean;
  bodyLimitBytes: number;
  logger: Logger;
  /** Route families of the API table, for the metrics labels. */
  families: ReadonlySet<string>;
}

/** Whether the request's body is read here (true), absent (false), or the request is Fastify's (undefined). */
function bodyPlan(req: IncomingMessage, limit: number): boolean | undefined {
  const h = req.headers;
  if (h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return undefined;
  const declared = h['content-length'];
  const type = h['content-type'];
  // GET bodies are never read (Fastify ignores them); without a type, only an empty body is plain.
  if (req.method === 'GET' || type === undefined) return declared === undefined || declared === '0' ? false : undefined;
  if (!JSON_TYPE.test(type) || declared === undefined || !LENGTH.test(declared) || Number(declared) > limit) return undefined;
  return true;
}

/**
 * The pre-routing handler, or undefined when the server's settings need Fastify on every
 * request: a CORS origin list (per-origin headers), trusted proxies (client address and
 * protocol from X-Forwarded-*), request logs (a line and an X-Request-Id per request).
 */
export function apiFastPath(s: ApiFastPathSettings, handed: HandedOff): PreRoute | undefined {
  if (s.policy.corsOrigins !== '*' || s.policy.trustProxy !== false || s.requestLog) return undefined;
  return (req, res, toFastify) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE') return false;
    const url = req.url ?? '';
    if (!PATH.test(url)) return false;
    const reads = bodyPlan(req, s.bodyLimitBytes);
    if (reads === undefined) return false;
    const q = url.indexOf('?');
    const metrics: AnswerMetrics = { family: routeFamily('/1.1/*', url, s.families), method, started: performance.now() };
    const call: ApiCall = {
      method,
      url,
      query: parseQueryString(q < 0 ? '' : url.slice(q + 1)),
      body: undefined,
      headers: req.headers,
      // Fastify's req.ip and req.protocol when no proxy is trusted.
      ip: req.socket.remoteAddress,
      protocol: (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http',
    };
    const serve = () => answer(s, handed, req, res, call, reads, metrics, toFastify);
    if (!reads) {
      serve();
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    // A client gone before the end of its body gets no answer; nothing to do but let it go.
    req.on('error', () => undefined);
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString('utf8');
      try {
        call.body = parseJsonBody(text);
      } catch (error) {
        // As Fastify answers a body its parser refused: the error, and the connection closed.
        const { status, body } = errorBody(error, (e) => logUnexpected(s.logger, e));
        writeJson(res, status, JSON.stringify(body), undefined, true, metrics);
        return;
      }
      serve();
    });
    return true;
  };
}

/** Dispatches the request and writes the outcome, or hands it to Fastify to send. */
function answer(s: ApiFastPathSettings, handed: HandedOff, req: IncomingMessage, res: ServerResponse, call: ApiCall, bodyRead: boolean, m: AnswerMetrics, toFastify: () => void): void {
  let retryAfter: number | undefined;
  // Fastify's compression applies to long answers when the client asks for it: those are its to send.
  const compressible = (text: string) => req.headers['accept-encoding'] !== undefined && Buffer.byteLength(text) >= COMPRESS_THRESHOLD;
  const toRoute = (settled: Settled) => handOff(handed, req, settled, bodyRead, toFastify);
  answerApi(s, call, (seconds) => (retryAfter = seconds)).then(
    (response) => {
      const text = wireText(response);
      if (text === undefined || compressible(text)) return toRoute({ response });
      try {
        writeJson(res, response.status, text, response.headers, false, m);
      } catch {
        // A header value Node refuses: Fastify answers that as it does on the route.
        if (res.headersSent) res.destroy();
        else toRoute({ response });
      }
    },
    (error: unknown) => {
      let unexpected = false;
      const { status, body } = errorBody(error, () => (unexpected = true));
      const text = JSON.stringify(body);
      if (compressible(text)) return toRoute({ error, retryAfter });
      if (unexpected) logUnexpected(s.logger, error);
      writeJson(res, status, text, retryAfter === undefined ? undefined : { 'retry-after': String(retryAfter) }, false, m);
    },
  );
}

/** Logs an error no catalogue entry describes, as Fastify's error handler does (server.ts), under a request id of its form. */
export function logUnexpected(logger: Logger, err: unknown): void {
  const reqId = randomUUID();
  logger.child({ reqId }).error({ err, reqId }, 'unhandled error');
}
