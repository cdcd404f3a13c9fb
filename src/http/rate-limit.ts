/**
 * Per-client request limits (issue 12 item 4): a fixed window of requests per client address and
 * per session token, counted in @fastify/rate-limit's in-memory store. A batch costs one request
 * per item it carries, so `/batch` is no way around the limit; the text/plain fallback (a POST
 * that says `_method: GET`) is one HTTP request like any other and is counted once. Calls signed
 * with the master key are the operator's own and are not limited.
 *
 * Beyond a limit the server answers HTTP 429 `{"code":429,"error":"Too many requests."}`, what
 * LeanCloud answers when an app passes its request concurrency (spec/leancloud-behaviour.md),
 * with a Retry-After header; the SDKs surface it as an ordinary error.
 */
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import { isBatchPath } from './batch/batch-path.ts';

/** The limits of one server; 0 turns a limit off. */
export interface RateLimits {
  /** Requests (batch items counted one by one) one client address may make per window. */
  perIp: number;
  /** Requests one session token may make per window, from any address. */
  perSession: number;
  /** Window length, ms. */
  windowMs: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's limiter (createServer), for routes outside the API dispatcher: cloud functions. */
    larderRateLimiter: RateLimiter;
  }
}

/** No limit: in-process tests and tools that build a server without a config. */
export const NO_RATE_LIMITS: RateLimits = Object.freeze({ perIp: 0, perSession: 0, windowMs: 60_000 });

/** Counts requests against the configured limits. */
export interface RateLimiter {
  /**
   * Counts `cost` requests for this caller: its client address (Fastify's `req.ip`, or the
   * socket's address where there is no Fastify request: function-fast-path.ts, which runs only
   * when no proxy is trusted, so the two are the same) and the session token it sent, if any.
   * Returns 0 when they are allowed, else the seconds until the window ends (the caller answers
   * 429). A refused call has still been counted: hammering past the limit does not shorten the wait.
   */
  take(ip: string | undefined, sessionToken: string | undefined, cost: number): number;
}

/** One limit: a counter per key in @fastify/rate-limit's in-memory store. */
interface Limit {
  store: InstanceType<typeof LocalStore>;
  max: number;
}

/**
 * Counts one request for `key`; the seconds to wait when that passes the limit, else 0. The
 * store is synchronous (it calls back before returning), so no promise is made per request.
 */
function count(limit: Limit, key: string, windowMs: number): number {
  let wait = 0;
  limit.store.incr(key, (_err, r) => {
    // At least a second: a window about to end still has to end before the next call counts.
    if (r.current > limit.max) wait = Math.max(1, Math.ceil(r.ttl / 1000));
  }, windowMs, limit.max);
  return wait;
}

/**
 * The server's limiter; a no-op one when both limits are 0. It counts in @fastify/rate-limit's
 * store (the plugin's LocalStore) directly rather than through the plugin's request hook: the
 * dispatcher and the function routes call it because only they know the session (header or
 * fallback body) and how many items a batch carries, and the function fast path has no Fastify
 * request to hand to the plugin.
 */
export function createRateLimiter(limits: RateLimits): RateLimiter {
  if (limits.perIp <= 0 && limits.perSession <= 0) return { take: () => 0 };
  // Each limit's store keeps the most recently seen clients (an LRU, 5,000 by default, which a
  // client rotating addresses could flush); 100,000 of them is a few MB.
  const CACHE = 100_000;
  const perIp: Limit | undefined = limits.perIp > 0 ? { store: new LocalStore(false, false, CACHE), max: limits.perIp } : undefined;
  const perSession: Limit | undefined = limits.perSession > 0 ? { store: new LocalStore(false, false, CACHE), max: limits.perSession } : undefined;
  const windowMs = limits.windowMs;
  return {
    take(ip, sessionToken, cost) {
      let wait = 0;
      // The store counts one call as one request: a batch of n items is n calls.
      for (let i = 0; i < Math.max(1, cost); i++) {
        if (perIp) wait = Math.max(wait, count(perIp, `ip:${ip}`, windowMs));
        if (perSession && sessionToken !== undefined) wait = Math.max(wait, count(perSession, `session:${sessionToken}`, windowMs));
        if (wait > 0) break;
      }
      return wait;
    },
  };
}

/**
 * How many requests one HTTP request counts as: a batch counts its items (at least one), every
 * other request one. `method` and `body` are after the text/plain fallback was unwrapped.
 */
export function requestCost(path: string, method: string, body: unknown): number {
  if (method !== 'POST' || !isBatchPath(path)) return 1;
  const requests = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { requests?: unknown }).requests : undefined;
  return Array.isArray(requests) ? Math.max(1, requests.length) : 1;
}
