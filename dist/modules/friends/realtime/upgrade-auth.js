import { resolvePrincipal } from '../../../auth/principal.js';
import { ApiError } from '../../../errors/api-error.js';
import { callerFromHeaders } from '../../../http/credentials.js';
import { authenticateCaller } from '../../../http/dispatch.js';
import { requireFriendsEnabled } from '../friends-enabled.js';
/** Credentials accepted as query parameters (lower-cased names). */
const QUERY_NAMES = ['x-lc-id', 'x-lc-key', 'x-lc-sign', 'x-lc-session'];
/** Upgrade headers, completed by query parameters where a header is absent. */
function credentialsBag(headers, query) {
    const bag = { ...headers };
    for (const [k, v] of query) {
        const name = k.toLowerCase();
        if (!QUERY_NAMES.includes(name) || bag[name] !== undefined || v === '')
            continue;
        // A URL ends up in logs, proxies and browser history: the master key never comes that way.
        if ((name === 'x-lc-key' || name === 'x-lc-sign') && v.trim().endsWith(',master')) {
            throw new ApiError('unauthorized', 'The master key is not accepted in a query string.');
        }
        bag[name] = v;
    }
    return bag;
}
/** The connecting user's id and session token, or an ApiError to answer with. */
export async function authenticateUpgrade(app, headers, query) {
    requireFriendsEnabled(app);
    const caller = callerFromHeaders(credentialsBag(headers, query));
    const c = caller.credentials;
    if (!c.appId)
        throw new ApiError('friendsMissingHeader', 'Missing request header: X-LC-Id.');
    if (!c.key && !c.sign && !c.masterKey)
        throw new ApiError('friendsMissingHeader', 'Missing request header: X-LC-Key.');
    const master = authenticateCaller(app, caller);
    if (!caller.sessionToken)
        throw new ApiError('friendsMissingHeader', 'Missing request header: X-LC-Session.');
    const principal = await resolvePrincipal(app, master, caller.sessionToken);
    if (!principal.userId)
        throw new ApiError('unauthorized', 'Invalid session token (X-LC-Session).');
    return { userId: principal.userId, sessionToken: caller.sessionToken };
}
//# sourceMappingURL=upgrade-auth.js.map