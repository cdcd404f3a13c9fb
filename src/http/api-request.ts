/**
 * One API request from the HTTP edge to its handler: the text/plain fallback unwrapped, the
 * caller authenticated, the per-client limits counted, the request dispatched. Shared by the
 * Fastify route (server.ts) and the fast path in front of it (api-fast-path.ts), so that the
 * two cannot answer differently.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { canonicalApiPath } from './batch/batch-path.ts';
import { callerFromHeaders, fromFallbackBody, type CallerInfo } from './credentials.ts';
import { authenticateCaller, dispatch, makeContext } from './dispatch.ts';
import { requestCost, type RateLimiter } from './rate-limit.ts';
import type { ApiResponse } from './route.ts';
import type { RouteTable } from './route-table.ts';

/** What serving an API request needs (one per server). */
export interface ApiServing {
  app: AppContext;
  routes: RouteTable;
  limiter: RateLimiter;
  publicUrl?: string;
}

/** An API request as it arrived, its body parsed. */
export interface ApiCall {
  method: string;
  /** The request target as sent (path and query string). */
  url: string;
  query: Record<string, unknown>;
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The client's address (Fastify's req.ip). */
  ip: string | undefined;
  /** 'http' or 'https'. */
  protocol: string;
}

/** The base of URLs the API hands out (Location): the configured public URL, else the request's own. */
function baseUrlOf(call: ApiCall, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  // Fastify's req.host: the Host header, '' without one.
  return `${call.protocol}://${call.headers.host ?? ''}`;
}

/**
 * Answers one API request. Errors are thrown (the caller turns them into `{code, error}`); a
 * request over a per-client limit throws 429 after `retryAfter` was told the seconds to wait.
 */
export async function answerApi(s: ApiServing, call: ApiCall, retryAfter: (seconds: number) => void): Promise<ApiResponse> {
  let method = call.method;
  let body = call.body;
  let query = call.query;
  let caller: CallerInfo = callerFromHeaders(call.headers);
  const fallback = method === 'POST' ? fromFallbackBody(body) : undefined;
  if (fallback) {
    method = fallback.method;
    caller = fallback.caller;
    body = fallback.body;
    // Old browser SDKs put a GET's (or DELETE's) parameters, e.g. `where`, in the fallback body;
    // they arrive as JSON values, which query-params.ts accepts as it does for batch items.
    // Parameters in the URL win, as in Parse Server's equivalent.
    if (method === 'GET' || method === 'DELETE') {
      query = { ...fallback.body, ...query };
      body = undefined;
    }
  }
  const master = authenticateCaller(s.app, caller);
  const path = canonicalApiPath(call.url.split('?')[0]);
  if (!master) {
    const wait = s.limiter.take(call.ip, caller.sessionToken, requestCost(path, method, body));
    if (wait > 0) {
      retryAfter(wait);
      throw new ApiError('tooManyRequests');
    }
  }
  const ctx = makeContext(s.app, caller, master, baseUrlOf(call, s.publicUrl));
  return dispatch(s.routes, { method, path, query, body, inBatch: false }, () => ctx);
}
