import { parseCorsOrigins, parseTrustProxy } from './cors-proxy.js';
/** What a server gets when nothing is configured (the defaults of `larder --help`). */
export const DEFAULT_HTTP_POLICY = Object.freeze({ corsOrigins: '*', trustProxy: false });
/** Reads the policy from the config; a bad value is a ConfigError (exit 2 at start-up). */
export function httpPolicyFromConfig(config) {
    return { corsOrigins: parseCorsOrigins(config.corsOrigins), trustProxy: parseTrustProxy(config.trustProxy) };
}
//# sourceMappingURL=http-policy.js.map