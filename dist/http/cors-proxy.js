/**
 * Who may call Larder from a browser, and whose X-Forwarded-* headers are believed (issue 12,
 * item 7). Parsed once at start-up from LARDER_CORS_ORIGINS and LARDER_TRUST_PROXY.
 */
import { ConfigError } from '../config.js';
/**
 * Parses LARDER_CORS_ORIGINS: `*` (the default) allows every origin without credentials, which
 * is what the SDKs need (they authenticate with headers, never cookies); a comma-separated list
 * of origins (`https://app.example.com`) allows only those, with credentials. Reflecting any
 * origin together with `Allow-Credentials: true` would let every web page act for a signed-in
 * browser, so that combination is never produced.
 */
export function parseCorsOrigins(setting) {
    const parts = setting.split(',').map((s) => s.trim()).filter(Boolean);
    if (parts.length === 1 && parts[0] === '*')
        return '*';
    if (parts.length === 0 || parts.includes('*'))
        throw new ConfigError('LARDER_CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.com');
    return parts.map((p) => {
        let url;
        try {
            url = new URL(p);
        }
        catch {
            throw new ConfigError(`LARDER_CORS_ORIGINS: ${JSON.stringify(p)} is not an origin such as https://app.example.com`);
        }
        if (url.origin === 'null' || url.origin !== p.replace(/\/+$/, ''))
            throw new ConfigError(`LARDER_CORS_ORIGINS: ${JSON.stringify(p)} must be a bare origin (scheme://host[:port]), e.g. ${url.origin}`);
        return url.origin;
    });
}
/** The @fastify/cors options of an origin setting. */
export function corsPolicy(origins) {
    return origins === '*' ? { origin: '*', credentials: false } : { origin: [...origins], credentials: true };
}
/**
 * Parses LARDER_TRUST_PROXY. Unset: no proxy is trusted, so a client cannot choose its own
 * address (rate limits are per address) or protocol with X-Forwarded-For/-Proto. `true`: every
 * hop is trusted (only behind a proxy that overwrites these headers); a number: that many hops;
 * otherwise a comma-separated list of proxy addresses or CIDRs (e.g. `10.0.0.0/8,127.0.0.1`).
 */
export function parseTrustProxy(setting) {
    if (setting === undefined)
        return false;
    const s = setting.trim();
    if (s === 'false')
        return false;
    if (s === 'true')
        return true;
    if (/^\d{1,3}$/.test(s))
        return Number(s);
    const list = s.split(',').map((p) => p.trim()).filter(Boolean);
    for (const p of list) {
        if (!/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/.test(p))
            throw new ConfigError(`LARDER_TRUST_PROXY: ${JSON.stringify(p)} is not an address or CIDR (or use true / a hop count)`);
    }
    if (list.length === 0)
        throw new ConfigError('LARDER_TRUST_PROXY must be true, false, a hop count, or proxy addresses/CIDRs');
    return list;
}
/** Fastify's form of the setting: a hop count becomes "trust the first n hops". */
export function fastifyTrustProxy(t) {
    return typeof t === 'number' ? (_address, hop) => hop < t : t;
}
//# sourceMappingURL=cors-proxy.js.map