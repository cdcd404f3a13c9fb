/**
 * The HTTP-level protections of one server (issue 12): CORS, trusted proxies. Built once from the
 * config (httpPolicyFromConfig) and handed to createApp; tests pass their own.
 */
import type { Config } from '../config.ts';
import { parseCorsOrigins, parseTrustProxy, type CorsOrigins, type TrustProxy } from './cors-proxy.ts';

/** Protections applied to every request before it reaches the API. */
export interface HttpPolicy {
  /** Browser origins allowed by CORS. */
  corsOrigins: CorsOrigins;
  /** Whose X-Forwarded-* headers are believed (client address and protocol). */
  trustProxy: TrustProxy;
}

/** What a server gets when nothing is configured (the defaults of `larder --help`). */
export const DEFAULT_HTTP_POLICY: HttpPolicy = Object.freeze({ corsOrigins: '*', trustProxy: false });

/** Reads the policy from the config; a bad value is a ConfigError (exit 2 at start-up). */
export function httpPolicyFromConfig(config: Pick<Config, 'corsOrigins' | 'trustProxy'>): HttpPolicy {
  return { corsOrigins: parseCorsOrigins(config.corsOrigins), trustProxy: parseTrustProxy(config.trustProxy) };
}
