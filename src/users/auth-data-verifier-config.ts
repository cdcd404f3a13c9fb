/**
 * authData verifiers from configuration (LARDER_AUTH_DATA_VERIFIERS), so that checking platform
 * tokens needs no change to Larder's source. The setting is a JSON object keyed by platform:
 *
 *   {"weixin": "https://verify.internal/weixin",                       a webhook
 *    "github": {"url": "https://...", "secret": "s", "timeoutMs": 3000}, a webhook, signed
 *    "apple":  {"module": "/etc/larder/verify-apple.mjs"}}               a JavaScript module
 *
 * A webhook gets `POST {"platform", "uid", "authData"}` and passes the entry only with a 2xx answer
 * whose body is `{"valid": true}`; any other answer rejects it (251). A webhook that cannot be
 * reached in time is a server-side failure (503), not the user's. A module's default export (or
 * its `verify` export) is an `AuthDataVerifier` or its `verify` function.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { ConfigError, urlSetting } from '../config.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Logger } from '../log.ts';
import { webhookSignature } from '../sms/webhook-sender.ts';
import type { AuthDataVerifier } from './auth-data-verifier.ts';

const ENV = 'LARDER_AUTH_DATA_VERIFIERS';
/** Default wait for a verifier webhook, ms. */
const DEFAULT_TIMEOUT_MS = 5000;
/** Longest accepted wait (a login waits for it). */
const MAX_TIMEOUT_MS = 60_000;

/** One platform's verifier as configured. */
export type VerifierSpec = { kind: 'webhook'; url: string; secret?: string; timeoutMs: number } | { kind: 'module'; path: string };

function webhookSpec(platform: string, v: Record<string, unknown>): VerifierSpec {
  const known = new Set(['url', 'secret', 'timeoutMs']);
  for (const k of Object.keys(v)) if (!known.has(k)) throw new ConfigError(`${ENV}: ${platform}: unknown member "${k}" (url, secret, timeoutMs)`);
  if (typeof v.url !== 'string') throw new ConfigError(`${ENV}: ${platform}: "url" must be a string`);
  const url = urlSetting(`${ENV} (${platform})`, v.url, ['http:', 'https:']) as string;
  if (v.secret !== undefined && (typeof v.secret !== 'string' || v.secret === '')) throw new ConfigError(`${ENV}: ${platform}: "secret" must be a non-empty string`);
  const t = v.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > MAX_TIMEOUT_MS) throw new ConfigError(`${ENV}: ${platform}: "timeoutMs" must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  return { kind: 'webhook', url, secret: v.secret as string | undefined, timeoutMs: t };
}

/** Parses the setting; every mistake is a ConfigError naming the platform (the start stops, exit 2). */
export function parseVerifierConfig(raw: string | undefined): Map<string, VerifierSpec> {
  const out = new Map<string, VerifierSpec>();
  if (raw === undefined) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${ENV} must be a JSON object keyed by platform`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`${ENV} must be a JSON object keyed by platform`);
  for (const [platform, v] of Object.entries(parsed)) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(platform)) throw new ConfigError(`${ENV}: "${platform.slice(0, 64)}" is not a platform name`);
    if (typeof v === 'string') out.set(platform, webhookSpec(platform, { url: v }));
    else if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'module' in v) {
      if (typeof v.module !== 'string' || v.module === '' || Object.keys(v).length !== 1) throw new ConfigError(`${ENV}: ${platform}: expected {"module": "<path of a .js/.mjs file>"}`);
      out.set(platform, { kind: 'module', path: resolve(v.module) });
    } else if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.set(platform, webhookSpec(platform, v as Record<string, unknown>));
    else throw new ConfigError(`${ENV}: ${platform}: expected a URL, {"url": ...} or {"module": ...}`);
  }
  return out;
}

/** A verifier that asks an HTTP service. */
export function webhookVerifier(spec: Extract<VerifierSpec, { kind: 'webhook' }>, logger: Logger): AuthDataVerifier {
  return {
    async verify(entry) {
      const body = JSON.stringify({ platform: entry.platform, uid: entry.uid, authData: entry.data });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (spec.secret) {
        const timestamp = String(Date.now());
        headers['x-larder-timestamp'] = timestamp;
        headers['x-larder-signature'] = webhookSignature(spec.secret, timestamp, body);
      }
      let res: Response;
      try {
        res = await fetch(spec.url, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(spec.timeoutMs) });
      } catch (err) {
        const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${spec.timeoutMs} ms` : String(err instanceof Error ? err.message : err);
        logger.warn({ platform: entry.platform, reason }, 'authData verifier webhook failed');
        throw new ApiError('notReady', `The authData verifier of ${entry.platform} is unavailable.`);
      }
      const answer: unknown = await res.json().catch(() => undefined);
      return res.ok && typeof answer === 'object' && answer !== null && (answer as { valid?: unknown }).valid === true;
    },
  };
}

/** Loads a verifier module: its default export or `verify` export, an object with verify() or the function itself. */
export async function moduleVerifier(path: string): Promise<AuthDataVerifier> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`${ENV}: cannot load ${path}: ${(err as Error).message}`);
  }
  const candidate = mod.default ?? mod.verify;
  if (typeof candidate === 'function') return { verify: candidate as AuthDataVerifier['verify'] };
  if (typeof candidate === 'object' && candidate !== null && typeof (candidate as AuthDataVerifier).verify === 'function') return candidate as AuthDataVerifier;
  throw new ConfigError(`${ENV}: ${path} must export a verify function (default or named "verify")`);
}

/** Builds every configured verifier (modules are loaded now, so a broken one stops the start). */
export async function verifiersFromConfig(raw: string | undefined, logger: Logger): Promise<Map<string, AuthDataVerifier>> {
  const out = new Map<string, AuthDataVerifier>();
  for (const [platform, spec] of parseVerifierConfig(raw)) {
    out.set(platform, spec.kind === 'webhook' ? webhookVerifier(spec, logger) : await moduleVerifier(spec.path));
  }
  return out;
}
