import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { safeEqual } from './constant-time.js';
function unauthorized() {
    return new ApiError('unauthorized');
}
function md5(text) {
    return createHash('md5').update(text).digest('hex');
}
/**
 * Checks the app id and one of: app key, `<master key>,master`, or an X-LC-Sign signature
 * `md5(timestamp + key),timestamp[,master]`. Master-key signatures outside the window are
 * refused so that a captured one cannot be replayed forever; app-key signatures follow the
 * original service and have no window. Every comparison is constant-time.
 */
export function authenticate(c, opts) {
    const { keys } = opts;
    if (!c.appId || !safeEqual(c.appId, keys.appId))
        throw unauthorized();
    if (c.sign) {
        const parts = c.sign.split(',');
        const [sig, ts, flag] = parts;
        if (parts.length > 3 || !sig || !ts || !/^\d{1,16}$/.test(ts))
            throw unauthorized();
        if (flag !== undefined && flag !== 'master')
            throw unauthorized();
        const master = flag === 'master';
        const expected = md5(ts + (master ? keys.masterKey : keys.appKey));
        if (!safeEqual(sig.toLowerCase(), expected))
            throw unauthorized();
        if (master && Math.abs(opts.now() - Number(ts)) > opts.masterSignWindowMs)
            throw unauthorized();
        return { master };
    }
    if (c.masterKey) {
        if (!safeEqual(c.masterKey, keys.masterKey))
            throw unauthorized();
        return { master: true };
    }
    if (c.key) {
        if (c.key.endsWith(',master')) {
            if (!safeEqual(c.key.slice(0, -',master'.length), keys.masterKey))
                throw unauthorized();
            return { master: true };
        }
        if (!safeEqual(c.key, keys.appKey))
            throw unauthorized();
        return { master: false };
    }
    throw unauthorized();
}
//# sourceMappingURL=authenticate.js.map