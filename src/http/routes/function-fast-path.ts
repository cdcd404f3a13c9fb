/**
 * The common cloud function call, forwarded before Fastify routes it: a POST of a small JSON
 * body with a declared length to `/1.1/functions/<name>` (or /call/, or under /1/) whose answer
 * is small too. Forwarding is all this server does for such a call, and Fastify's routing,
 * hooks and reply machinery cost more CPU than the engine spends answering a trivial function
 * (docs/benchmarks.md, "Cloud code"), so the call is read, sent and answered here.
 *
 * The answer is the one the Fastify route (functions.ts) would give: the same headers to the
 * engine, the same status, body and headers back (CORS `*`, no compression under the threshold),
 * the same metrics. Anything else goes to the route: requests it does not cover before anything
 * is read; after the engine call, failures (401, timeouts, unreachable engine) and answers it
 * does not write itself (large, streamed, 204/304), with the call's result attached so that
 * the call is never made twice.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { AppContext } from '../../app-context.ts';
import type { AnswerHead } from '../../cloud/answer-parser.ts';
import type { StreamedAnswer } from '../../cloud/engine-client.ts';
import { countAnswer } from '../../metrics/core-metrics.ts';
import { callerFromHeaders } from '../credentials.ts';
import type { HttpPolicy } from '../http-policy.ts';
import type { PreRoute } from '../pre-routing.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { ApiError } from '../../errors/api-error.ts';
import { addAddressHeaders, admitCall, engineCallFailure, enginePath, forwarded, passedBack, sendEngineCall, WHOLE_BYTES } from './function-forwarding.ts';

/** One path segment of plain characters: anything unusual is the route's to judge. */
const PATH = /^\/1(?:\.1)?\/(functions|call)\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;

/** Answers shorter than this are never compressed (@fastify/compress threshold in server.ts). */
const COMPRESS_THRESHOLD = 1024;

/**
 * What the fast path learnt before handing a request to the route: the engine's answer, or the
 * error the route throws (with the Retry-After seconds of a call over a per-client limit).
 */
export type Prefetched = { answer: StreamedAnswer } | { error: unknown; retryAfter?: number };

/** Requests the fast path handed to the route, with what it got for them (one map per server). */
export type PrefetchedCalls = WeakMap<IncomingMessage, Prefetched>;

/** What decides whether the fast path may answer at all (the server's settings). */
export interface FastPathSettings {
  policy: HttpPolicy;
  requestLog: boolean;
  bodyLimitBytes: number;
  /** The server's per-client limits, shared with the route (rate-limit.ts). */
  limiter: RateLimiter;
}

/** Statuses Fastify sends with their body as it is (no 1xx, no bodiless 204/205/304). */
function plainStatus(status: number): boolean {
  return status >= 200 && status <= 599 && status !== 204 && status !== 205 && status !== 304;
}

/**
 * The answers this path writes itself, read whole by the engine client (no stream): a plain
 * status and a declared length under the compression threshold. Every other answer goes to the
 * route as a stream.
 */
function answeredHere(head: AnswerHead): boolean {
  return Number(head.headers['content-length']) < COMPRESS_THRESHOLD && plainStatus(head.status);
}

/** Hands a request the fast path took to the route, with what it learnt (Prefetched). */
function handOff(prefetched: PrefetchedCalls, req: IncomingMessage, toFastify: () => void, p: Prefetched): void {
  prefetched.set(req, p);
  toFastify();
}

/**
 * A text/plain body (old browsers' credentials-in-body), case-insensitively, as /^text\/plain/i
 * read it: compared in place rather than by a regex run on every call's Content-Type.
 */
export function isTextPlain(type: string | undefined): boolean {
  if (type === undefined || type.length < 10) return false;
  const c = type.charCodeAt(0);
  if (c !== 116 && c !== 84) return false; // Not t or T: the common application/json ends here.
  return type.slice(0, 10).toLowerCase() === 'text/plain';
}

/**
 * The headers of an answer this path writes, as the route sends them: the engine's content
 * type (or application/octet-stream), cache control and cookies (passedBack), CORS `*` and the
 * length, in one object made once.
 */
function answerHeaders(engine: IncomingHttpHeaders, length: number): OutgoingHttpHeaders {
  const type = engine['content-type'];
  const cache = engine['cache-control'];
  const cookies = engine['set-cookie'];
  // The common answer: a content type and nothing else passed back.
  if (cache === undefined && cookies === undefined) return { 'content-type': type ?? 'application/octet-stream', 'access-control-allow-origin': '*', 'content-length': length };
  const out: OutgoingHttpHeaders = passedBack(engine);
  out['access-control-allow-origin'] = '*';
  out['content-type'] ??= 'application/octet-stream';
  out['content-length'] = length;
  return out;
}

/**
 * The pre-routing handler, or undefined when there is no engine or the server's settings need
 * Fastify on every call: a CORS origin list (per-origin headers), trusted proxies (the client
 * address), request logs. Per-client rate limits are counted here, in the route's limiter: the
 * socket's address is the client's (no proxy is trusted), and a call over a limit is handed to
 * the route with its 429, so the answer is the route's and the call is counted once.
 */
export function functionFastPath(app: AppContext, settings: FastPathSettings, prefetched: PrefetchedCalls): PreRoute | undefined {
  // Without an engine every call is the route's 'not configured' error: nothing to speed up.
  if (!app.cloud || settings.policy.corsOrigins !== '*' || settings.policy.trustProxy !== false || settings.requestLog) return undefined;
  return (req, res, toFastify) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    const m = PATH.exec(url);
    if (!m || !app.cloud) return false;
    const h = req.headers;
    const declared = h['content-length'];
    const limit = Math.min(app.cloud.options.bodyLimitBytes ?? settings.bodyLimitBytes, WHOLE_BYTES);
    // Chunked, compressed, oversized and text/plain (old browsers' credentials-in-body) bodies: the route's.
    if (declared === undefined || h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined || Number(declared) > limit) return false;
    if (isTextPlain(h['content-type'])) return false;
    const started = performance.now();
    const family = m[1];
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      // No Content-Length among them: the engine client frames a buffer body by its length.
      const headers = forwarded(h);
      const peer = req.socket.remoteAddress ?? '';
      addAddressHeaders(headers, h, peer, peer);
      const caller = callerFromHeaders(h);
      let wait: number;
      try {
        // Fastify's req.ip is the socket's address when no proxy is trusted (the route's key).
        wait = admitCall(app, settings.limiter, caller, req.socket.remoteAddress);
      } catch (error) {
        return handOff(prefetched, req, toFastify, { error });
      }
      if (wait > 0) return handOff(prefetched, req, toFastify, { error: new ApiError('tooManyRequests'), retryAfter: wait });
      // A callback, not a promise: one closure per call instead of a promise, its two reactions
      // and a microtask turn (docs/benchmarks.md, "Cloud code").
      sendEngineCall(app, caller, enginePath(url), headers, body, answeredHere, (error, answer) => {
        if (error !== undefined || answer === undefined) return handOff(prefetched, req, toFastify, { error: engineCallFailure(app, caller, error) });
        if (!('whole' in answer)) return handOff(prefetched, req, toFastify, { answer });
        const whole = answer.whole;
        res.writeHead(answer.status, answerHeaders(answer.headers, whole.length));
        // As a latin1 string (bytes for bytes), Node sends the head and body in one write
        // instead of corking a writev of the two.
        res.end(whole.toString('latin1'), 'latin1');
        countAnswer(family, 'POST', answer.status, (performance.now() - started) / 1000);
      });
    });
    return true;
  };
}
