/**
 * The HTTP-level protections of one server (issue 12): CORS, trusted proxies, rate limits. Built once from the
 * config (httpPolicyFromConfig) and handed to createApp; tests pass their own.
 */
import { ConfigError, type Config } from '../config.ts';
import { parseCorsOrigins, parseTrustProxy, type CorsOrigins, type TrustProxy } from './cors-proxy.ts';
import { NO_RATE_LIMITS, type RateLimits } from './rate-limit.ts';

/** Protections applied to every request before it reaches the API. */
export interface HttpPolicy {
  /** Browser origins allowed by CORS. */
  corsOrigins: CorsOrigins;
  /** Whose X-Forwarded-* headers are believed (client address and protocol). */
  trustProxy: TrustProxy;
  /** Requests per client address and per session (rate-limit.ts); none when absent. */
  rateLimits?: RateLimits;
}

/** What a server gets when nothing is configured (in-process tests): `larder serve` has rate limits by default. */
export const DEFAULT_HTTP_POLICY: HttpPolicy = Object.freeze({ corsOrigins: '*', trustProxy: false, rateLimits: NO_RATE_LIMITS });

/** Reads the policy from the config; a bad value is a ConfigError (exit 2 at start-up). */
export function httpPolicyFromConfig(config: Pick<Config, 'corsOrigins' | 'trustProxy' | 'rateLimitPerIp' | 'rateLimitPerSession' | 'rateLimitWindowMs'>): HttpPolicy {
  if (config.rateLimitWindowMs < 1000) throw new ConfigError(`LARDER_RATE_LIMIT_WINDOW_MS must be at least 1000, got ${config.rateLimitWindowMs}`);
  return {
    corsOrigins: parseCorsOrigins(config.corsOrigins),
    trustProxy: parseTrustProxy(config.trustProxy),
    rateLimits: { perIp: config.rateLimitPerIp, perSession: config.rateLimitPerSession, windowMs: config.rateLimitWindowMs },
  };
}
