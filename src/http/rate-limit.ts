/**
 * Per-client request limits (issue 12 item 4): a fixed window of requests per client address and
 * per session token, counted by @fastify/rate-limit's in-memory store. A batch costs one request
 * per item it carries, so `/batch` is no way around the limit; the text/plain fallback (a POST
 * that says `_method: GET`) is one HTTP request like any other and is counted once. Calls signed
 * with the master key are the operator's own and are not limited.
 *
 * Beyond a limit the server answers HTTP 429 `{"code":429,"error":"Too many requests."}`, what
 * LeanCloud answers when an app passes its request concurrency (spec/leancloud-behaviour.md),
 * with a Retry-After header; the SDKs surface it as an ordinary error.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/** True when at least one limit is on. */
export function limitsOn(limits: RateLimits | undefined): boolean {
  return limits !== undefined && (limits.perIp > 0 || limits.perSession > 0);
}

/** No limit: in-process tests and tools that build a server without a config. */
export const NO_RATE_LIMITS: RateLimits = Object.freeze({ perIp: 0, perSession: 0, windowMs: 60_000 });

/** Who is asking: set once per request by the dispatcher, read by the key generators. */
const sessions = new WeakMap<FastifyRequest, string>();

// `isAllowed` is true only for allow-listed keys; a counted call is refused when `isExceeded`.
type Check = (req: FastifyRequest) => Promise<{ isAllowed: true } | { isAllowed: false; isExceeded: boolean; ttlInSeconds: number }>;

/** Counts requests against the configured limits; throws 429 past one of them. */
export interface RateLimiter {
  /**
   * Counts `cost` requests for this caller (the session token it sent, if any); resolves to 0
   * when they are allowed, else to the seconds until the window ends (the caller answers 429).
   * A refused call has still been counted: hammering past the limit does not shorten the wait.
   */
  take(req: FastifyRequest, sessionToken: string | undefined, cost: number): Promise<number>;
}

/** Registers the limiter on the server; a no-op limiter when both limits are 0. */
export async function installRateLimits(server: FastifyInstance, limits: RateLimits): Promise<RateLimiter> {
  if (limits.perIp <= 0 && limits.perSession <= 0) return { take: async () => 0 };
  // global: false: the plugin adds no hook of its own; the dispatcher calls the checks, because
  // only it knows the session (header or fallback body) and how many items a batch carries.
  await server.register(rateLimit, { global: false });
  // Each limiter's store keeps the most recently seen clients (an LRU, 5,000 by default, which a
  // client rotating addresses could flush); 100,000 of them is a few MB. The plugin reads
  // `cache` from these options although its types list it for route options only.
  const store = { timeWindow: limits.windowMs, cache: 100_000 };
  const checks: Check[] = [];
  if (limits.perIp > 0) checks.push(server.createRateLimit({ ...store, max: limits.perIp, keyGenerator: (req) => `ip:${req.ip}` }));
  if (limits.perSession > 0) {
    const bySession = server.createRateLimit({ ...store, max: limits.perSession, keyGenerator: (req) => `session:${sessions.get(req) ?? ''}` });
    checks.push((req) => (sessions.has(req) ? bySession(req) : Promise.resolve({ isAllowed: true })));
  }
  return {
    async take(req, sessionToken, cost) {
      if (sessionToken !== undefined) sessions.set(req, sessionToken);
      let wait = 0;
      // The store counts one call as one request: a batch of n items is n calls.
      for (let i = 0; i < Math.max(1, cost); i++) {
        for (const check of checks) {
          const r = await check(req);
          if (!r.isAllowed && r.isExceeded) wait = Math.max(wait, r.ttlInSeconds, 1);
        }
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
