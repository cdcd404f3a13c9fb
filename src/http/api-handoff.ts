/**
 * Requests the API fast path (api-fast-path.ts) answered but leaves to Fastify to send: an
 * answer it does not write itself (compressed, streamed, bodiless, unusual headers) or an
 * error Fastify's handler should render. The route (server.ts) finds the outcome here and
 * sends it instead of dispatching again, so a request is never served twice.
 */
import type { IncomingMessage } from 'node:http';
import type { ApiResponse } from './route.ts';

/** What the fast path got for a request: the answer, or the error (with the seconds of a 429's Retry-After). */
export type Settled = { response: ApiResponse } | { error: unknown; retryAfter?: number };

/** The requests handed to the route with their outcome (one map per server). */
export type HandedOff = WeakMap<IncomingMessage, Settled>;

/**
 * Records the outcome and lets Fastify route the request. When the fast path has read the
 * body already, the request is made to say it has none (no content type, length 0): Fastify
 * then calls the route without waiting for a body that will never come again.
 */
export function handOff(handed: HandedOff, req: IncomingMessage, settled: Settled, bodyRead: boolean, toFastify: () => void): void {
  handed.set(req, settled);
  if (bodyRead) {
    delete req.headers['content-type'];
    req.headers['content-length'] = '0';
  }
  toFastify();
}
