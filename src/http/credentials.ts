import type { Credentials } from '../auth/authenticate.ts';
import { ApiError } from '../errors/api-error.ts';

/** Header names by meaning; the first is the current one, the rest are legacy aliases. */
const HEADERS = {
  appId: ['x-lc-id', 'x-avoscloud-application-id', 'x-uluru-application-id'],
  key: ['x-lc-key', 'x-avoscloud-application-key', 'x-uluru-application-key'],
  masterKey: ['x-avoscloud-master-key', 'x-uluru-master-key'],
  sign: ['x-lc-sign', 'x-avoscloud-request-sign', 'x-uluru-request-sign'],
  session: ['x-lc-session', 'x-avoscloud-session-token', 'x-uluru-session-token'],
  prod: ['x-lc-prod', 'x-avoscloud-application-production', 'x-uluru-application-production'],
  hookKey: ['x-lc-hook-key'],
} as const;

type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

function first(headers: HeaderBag, names: readonly string[]): string | undefined {
  for (const n of names) {
    const v = headers[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (s !== undefined && s !== '') return s.trim();
  }
  return undefined;
}

/** Everything the caller said about who it is. */
export interface CallerInfo {
  credentials: Credentials;
  sessionToken?: string;
  production: boolean;
  /** X-LC-Hook-Key as sent (LeanEngine SDKs send it with every request); checked where it matters. */
  hookKey?: string;
}

/** Reads credentials, session and environment from request headers (incl. legacy aliases). */
export function callerFromHeaders(headers: HeaderBag): CallerInfo {
  const prod = first(headers, HEADERS.prod);
  return {
    credentials: {
      appId: first(headers, HEADERS.appId),
      key: first(headers, HEADERS.key),
      masterKey: first(headers, HEADERS.masterKey),
      sign: first(headers, HEADERS.sign),
    },
    sessionToken: first(headers, HEADERS.session),
    production: prod !== '0',
    hookKey: first(headers, HEADERS.hookKey),
  };
}

/** A request rewritten from the text/plain POST fallback. */
export interface FallbackRequest {
  method: string;
  caller: CallerInfo;
  body: Record<string, unknown>;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The text/plain fallback of old browsers (leancloud-behaviour §9): a POST whose JSON body
 * carries `_method`, `_ApplicationId`, `_ApplicationKey`, `_MasterKey`, `_SessionToken`,
 * `_ApplicationProduction`. Single-underscore keys are stripped; `__` keys are kept.
 * Returns undefined when the body is not such a request.
 */
export function fromFallbackBody(body: unknown): FallbackRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (!('_ApplicationId' in b)) return undefined;
  // fromEntries defines own properties: a `__proto__` key stays a key (refused later as a field
  // name) instead of replacing the prototype of the body, as `clean[k] = v` would.
  const clean: Record<string, unknown> = Object.fromEntries(Object.entries(b).filter(([k]) => !/^_[^_]/.test(k)));
  // A `_method` that is not a non-empty string is a malformed request, not a create: treating
  // `{"_method": 1}` as a POST would write what the client meant to read.
  if (Object.hasOwn(b, '_method') && str(b._method) === undefined) {
    throw new ApiError('invalidJson', '_method must be a string naming the method: GET, POST, PUT or DELETE.');
  }
  const method = (str(b._method) ?? 'POST').toUpperCase();
  return {
    method,
    caller: {
      credentials: { appId: str(b._ApplicationId), key: str(b._ApplicationKey), masterKey: str(b._MasterKey) },
      sessionToken: str(b._SessionToken),
      production: b._ApplicationProduction !== 0 && b._ApplicationProduction !== '0',
    },
    body: clean,
  };
}
