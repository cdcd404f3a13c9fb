import { ApiError } from '../../../errors/api-error.js';
/** Query key carrying the request's Accept-Language header to the handlers. */
export const ACCEPT_LANGUAGE_PARAM = '__acceptLanguage';
function header(req, ...names) {
    for (const n of names) {
        const v = req.headers[n];
        const s = Array.isArray(v) ? v[0] : v;
        if (s !== undefined && s.trim() !== '')
            return s;
    }
    return undefined;
}
function isFallbackBody(body) {
    return typeof body === 'object' && body !== null && !Array.isArray(body) && '_ApplicationId' in body;
}
/** Installs the hooks for every /friend route (this module's and the friend models'). */
export function installFriendsRequestHooks(server) {
    server.addHook('preHandler', async (req) => {
        if (!req.url.startsWith('/friend/') || req.method === 'OPTIONS')
            return;
        const q = req.query;
        if (typeof q === 'object' && q !== null) {
            const query = q;
            const lang = header(req, 'accept-language');
            if (lang === undefined)
                delete query[ACCEPT_LANGUAGE_PARAM];
            else
                query[ACCEPT_LANGUAGE_PARAM] = lang.slice(0, 512);
        }
        if (isFallbackBody(req.body))
            return;
        if (!header(req, 'x-lc-id', 'x-avoscloud-application-id', 'x-uluru-application-id')) {
            throw new ApiError('friendsMissingHeader', 'Missing request header: X-LC-Id.');
        }
        if (!header(req, 'x-lc-key', 'x-lc-sign', 'x-avoscloud-application-key', 'x-avoscloud-master-key', 'x-avoscloud-request-sign', 'x-uluru-application-key', 'x-uluru-master-key', 'x-uluru-request-sign')) {
            throw new ApiError('friendsMissingHeader', 'Missing request header: X-LC-Key (or X-LC-Sign).');
        }
    });
}
//# sourceMappingURL=request-hooks.js.map