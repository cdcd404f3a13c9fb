import { safeEqual } from '../auth/constant-time.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import { httpDuration, httpRequests, rateLimitRefusals } from '../metrics/core-metrics.js';
import { watchPool } from '../metrics/pool-metrics.js';
import { metricsRegistry } from '../metrics/registry.js';
import { callerFromHeaders } from './credentials.js';
import { authenticateCaller } from './dispatch.js';
import { routeFamily } from './route-family.js';
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
/** Routes whose path may carry a token (mailed links, download links): logged by pattern only. */
const TOKEN_PATHS = new Set(['pages', 'export-download']);
/** True when the request may read /metrics; throws the API's 401 for bad keys. */
function mayReadMetrics(app, headers, token) {
    const auth = headers.authorization;
    if (token && typeof auth === 'string' && auth.startsWith('Bearer '))
        return safeEqual(auth.slice(7), token);
    return authenticateCaller(app, callerFromHeaders(headers));
}
/** Adds the metrics hook, the optional request log and GET /metrics to the server. */
export function mountObservability(server, opts) {
    watchPool(opts.app.db);
    server.addHook('onResponse', async (req, reply) => {
        const family = routeFamily(req.routeOptions.url, req.url, opts.families);
        const method = METHODS.has(req.method) ? req.method : 'OTHER';
        const status = reply.statusCode;
        const seconds = reply.elapsedTime / 1000;
        httpRequests.inc({ family, method, status: String(status) });
        httpDuration.observe({ family, method }, seconds);
        if (status === 429)
            rateLimitRefusals.inc({ family });
        if (opts.requestLog) {
            // Never the query string (download tokens, where clauses); token-bearing paths by pattern.
            const path = TOKEN_PATHS.has(family) ? req.routeOptions.url : req.url.split('?')[0].slice(0, 300);
            req.log.info({ reqId: req.id, method, path, family, status, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
        }
    });
    if (opts.requestLog) {
        server.addHook('onRequest', async (req, reply) => {
            void reply.header('x-request-id', req.id);
        });
    }
    server.get('/metrics', async (req, reply) => {
        let allowed;
        try {
            allowed = mayReadMetrics(opts.app, req.headers, opts.metricsToken);
        }
        catch (err) {
            if (!isApiError(err))
                throw err;
            return reply.code(err.status).send(err.toJSON());
        }
        if (!allowed) {
            const err = new ApiError('masterKeyRequired', 'Reading /metrics needs the master key or the metrics token.');
            return reply.code(err.status).send(err.toJSON());
        }
        return reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
    });
}
//# sourceMappingURL=observability.js.map