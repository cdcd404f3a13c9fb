import autocannon from 'autocannon';
import { BENCH_KEYS } from './server-process.ts';

/** One request shape to repeat; the functions make a fresh path/body per request. */
export interface HttpRequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: () => string;
  body?: () => string;
  /** Extra headers per request (e.g. a user's X-LC-Session). */
  headers?: () => Record<string, string>;
  /**
   * Counts failures hidden inside a 2xx body (batch items answered with `error`). Reading
   * bodies costs the load generator time, so only workloads that need it set this.
   */
  hiddenErrors?: (body: string) => number;
}

/** How long to run: a fixed time, or a fixed number of requests (exact counter checks). */
export type HttpRunLength = { durationSec: number } | { amount: number };

/** What one HTTP load run measured. */
export interface HttpRunResult {
  /** 2xx responses per second of wall time. */
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  /** 2xx responses. */
  ok: number;
  /** Requests written to sockets (includes those in flight when a timed run stopped). */
  sent: number;
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  /** Failures inside 2xx bodies (see hiddenErrors). */
  hiddenErrors: number;
  durationSec: number;
  /** Status code -> count, for the report when something failed. */
  statuses: Record<string, number>;
}

/**
 * Authenticates with X-LC-Id + X-LC-Key (the app key, not the master key, so ACL filtering is
 * part of every query). The SDKs sign with X-LC-Sign = md5(timestamp + key); that costs the
 * server one md5 per request and would cost the load generator the same per request, so the
 * plain key is used to keep the generator's own CPU use down on a shared machine.
 */
export const AUTH_HEADERS: Readonly<Record<string, string>> = {
  'x-lc-id': BENCH_KEYS.appId,
  'x-lc-key': BENCH_KEYS.appKey,
  'content-type': 'application/json',
};

/** Drives `spec` against `baseUrl` with autocannon over `connections` keep-alive connections. */
export async function runHttpLoad(baseUrl: string, spec: HttpRequestSpec, length: HttpRunLength, connections: number): Promise<HttpRunResult> {
  let hidden = 0;
  const request: autocannon.Request = {
    method: spec.method,
    headers: { ...AUTH_HEADERS },
    setupRequest: (req) => {
      req.path = spec.path();
      if (spec.body) req.body = spec.body();
      if (spec.headers) req.headers = { ...AUTH_HEADERS, ...spec.headers() };
      return req;
    },
  };
  const check = spec.hiddenErrors;
  if (check) request.onResponse = (status, body) => {
    if (status >= 200 && status < 300) hidden += check(body);
  };
  const result = await autocannon({
    url: baseUrl,
    connections,
    pipelining: 1,
    timeout: 30,
    ...('amount' in length ? { amount: length.amount } : { duration: length.durationSec }),
    requests: [request],
  });
  const statuses: Record<string, number> = {};
  for (const [code, v] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = Number(v?.count ?? 0);
  const ok = result['2xx'];
  return {
    perSec: result.duration > 0 ? ok / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok,
    sent: result.requests.sent,
    non2xx: result.non2xx,
    errors: result.errors,
    hiddenErrors: hidden,
    durationSec: result.duration,
    statuses,
  };
}

/** One request with the bench's credentials, for setup and sanity checks (throws on non-2xx). */
export async function apiCall(baseUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: AUTH_HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (res.status < 200 || res.status >= 300) throw new HttpError(method, path, res.status, text);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** A setup or sanity request that did not answer 2xx. */
export class HttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path.slice(0, 120)} answered ${status}: ${body.slice(0, 300)}`);
  }
}
