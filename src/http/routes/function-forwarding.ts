/**
 * What a forwarded cloud function call (functions.ts, function-fast-path.ts) sends to the engine
 * and takes from its answer: the caller's headers, the client's address, the key check, the
 * engine call with its deadline, and the answer headers passed back.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.ts';
import { engineFailure } from '../../cloud/cloud-code.ts';
import type { AnswerCallback, StreamedAnswer, WantsWhole } from '../../cloud/engine-client.ts';
import { EngineCallError } from '../../cloud/engine-call-error.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { CallerInfo } from '../credentials.ts';
import { authenticateCaller } from '../dispatch.ts';
import type { RateLimiter } from '../rate-limit.ts';

/** Request headers passed on to the engine as the caller sent them (credentials included). */
export const FORWARDED = [
  'content-type', 'user-agent', 'accept-language',
  'x-lc-id', 'x-lc-key', 'x-lc-sign', 'x-lc-session', 'x-lc-prod', 'x-lc-ua', 'x-lc-hook-key',
  'x-avoscloud-application-id', 'x-avoscloud-application-key', 'x-avoscloud-master-key', 'x-avoscloud-session-token',
  'x-avoscloud-request-sign', 'x-avoscloud-application-production',
  'x-uluru-application-id', 'x-uluru-application-key', 'x-uluru-master-key', 'x-uluru-session-token',
  'x-uluru-request-sign', 'x-uluru-application-production',
] as const;

const FORWARDED_NAMES: ReadonlySet<string> = new Set(FORWARDED);

/**
 * The request headers passed on to the engine (FORWARDED), repeated ones joined as HTTP allows.
 * Walks the request's own few headers rather than looking up every name of FORWARDED: most of
 * those are legacy aliases a request does not carry, and each missing name cost a lookup per
 * forwarded call (docs/benchmarks.md, "Cloud code").
 */
export function forwarded(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n in headers) {
    if (!FORWARDED_NAMES.has(n)) continue;
    const v = headers[n];
    if (typeof v === 'string') out[n] = v;
    else if (Array.isArray(v)) out[n] = v.join(', ');
  }
  return out;
}

/**
 * Bodies and answers up to this size (with a declared length) are read whole and written in one
 * piece: a typical AV.Cloud.run call and its result are a few hundred bytes, and piping them
 * through stream transforms cost more CPU than the engine spent answering (docs/benchmarks.md).
 * Larger or chunked ones are streamed, never held whole.
 */
export const WHOLE_BYTES = 64 * 1024;

/** Answer headers passed back (the rest, hop-by-hop ones included, are the engine's business). */
const PASSED_BACK = ['content-type', 'cache-control'] as const;

/**
 * The engine's answer headers the client gets: content type and cache control, and every
 * `Set-Cookie` as a header of its own. Cookies cannot be joined with commas as other repeated
 * headers can: an `Expires` date holds a comma, so a joined list would be read as other cookies.
 */
export function passedBack(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = pick(headers, PASSED_BACK);
  const cookies = headers['set-cookie'];
  if (cookies !== undefined && cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

/** The named headers that are present, repeated ones joined as HTTP allows. */
export function pick(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = headers[n];
    if (typeof v === 'string') out[n] = v;
    else if (Array.isArray(v)) out[n] = v.join(', ');
  }
  return out;
}

/**
 * Adds what the engine is told about the client's address (LeanEngine reads X-Real-IP first):
 * `peer` is the connection's address, `ip` the client's as the server's proxy trust sees it.
 */
export function addAddressHeaders(out: Record<string, string>, headers: IncomingHttpHeaders, peer: string, ip: string): Record<string, string> {
  const before = headers['x-forwarded-for'];
  out['x-forwarded-for'] = typeof before === 'string' && before !== '' ? `${before}, ${peer}` : peer;
  out['x-real-ip'] = ip;
  return out;
}

/** The engine path of a request URL: no query, and `/1/` spelled `/1.1/` as LeanEngine routes it. */
export function enginePath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return path.startsWith('/1/') ? `/1.1/${path.slice(3)}` : path;
}

/**
 * What comes before every engine call, on the route and on the fast path alike: the caller's
 * keys are checked (the API error, e.g. 401, is thrown) and a call without the master key counts
 * against the per-client limits (rate-limit.ts), like any API request: each one makes the engine
 * work, so it must not be a way around them. Returns 0, or the seconds to wait when the call is
 * over a limit (the client gets 429 with Retry-After; the engine is not asked).
 */
export function admitCall(app: AppContext, limiter: RateLimiter, caller: CallerInfo, ip: string | undefined): number {
  // The engine checks the credentials too; checking them here keeps unauthenticated traffic
  // away from it and answers with Larder's usual 401.
  if (authenticateCaller(app, caller)) return 0;
  return limiter.take(ip, caller.sessionToken, 1);
}

/**
 * What a failed engine call becomes for the client, on the route and on the fast path alike:
 * the caller's own error (`onFailure`, e.g. a body over the limit) first, else the engine's.
 */
export function engineCallFailure(app: AppContext, caller: CallerInfo, err: unknown, onFailure?: () => ApiError | undefined): ApiError {
  const own = onFailure?.();
  if (own) return own;
  // The engine answered, and reading its answer failed: as readWhole's failure on the route.
  if (err instanceof EngineCallError && err.afterHead) return engineFailure(err, 'function');
  const e = engineFailure(err, 'function');
  if (e.errorName === 'engineUnreachable') {
    const staging = !caller.production && app.cloud?.options.stagingUrl;
    return new ApiError('engineUnreachable', `The cloud code engine (${staging ? 'LARDER_ENGINE_STAGING_URL' : 'LARDER_ENGINE_URL'}) did not answer.`);
  }
  return e;
}

/**
 * Sends a call admitted by admitCall, for the fast path: the engine client's callback
 * (`exchange`), no promise; a failure is the engine client's error (or engineNotConfigured),
 * which engineCallFailure turns into the client's.
 */
export function sendEngineCall(app: AppContext, caller: CallerInfo, path: string, headers: Record<string, string>, body: Buffer, whole: WantsWhole, done: AnswerCallback): void {
  const cloud = app.cloud;
  if (!cloud) return done(new ApiError('engineNotConfigured'));
  cloud.engine(caller.production).exchange({ method: 'POST', path, headers, body, timeoutMs: cloud.options.functionTimeoutMs }, whole, done);
}

/**
 * Sends a call admitted by admitCall; resolves with the engine's answer (status and headers in,
 * body still arriving) or fails with the API error the client gets.
 */
export async function callEngine(app: AppContext, caller: CallerInfo, path: string, headers: Record<string, string>, body: Buffer | Readable | undefined, onFailure?: () => ApiError | undefined): Promise<StreamedAnswer> {
  const cloud = app.cloud;
  if (!cloud) throw new ApiError('engineNotConfigured');
  try {
    return await cloud.engine(caller.production).open({ method: 'POST', path, headers, body, timeoutMs: cloud.options.functionTimeoutMs });
  } catch (err) {
    throw engineCallFailure(app, caller, err, onFailure);
  }
}
