import Fastify, { LogController } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import { ApiError, isApiError } from '../errors/api-error.js';
import { callerFromHeaders, fromFallbackBody } from './credentials.js';
import { authenticateCaller, dispatch, makeContext } from './dispatch.js';
import { parseJsonBody } from './json-body.js';
import { errorBody } from './error-body.js';
import { canonicalApiPath } from '../batch/batch-path.js';
import { mountPages } from './routes/pages.js';
import { RawJson } from '../objects/raw-json.js';
import { lazyChildLogger } from './lazy-child-logger.js';
import { mountObservability } from './observability.js';
import { corsPolicy, fastifyTrustProxy } from './cors-proxy.js';
import { DEFAULT_HTTP_POLICY } from './http-policy.js';
const CORS_HEADERS = [
    'Content-Type', 'X-LC-Id', 'X-LC-Key', 'X-LC-Sign', 'X-LC-Session', 'X-LC-Prod', 'X-LC-UA', 'X-LC-Hook-Key',
    'X-AVOSCloud-Application-Id', 'X-AVOSCloud-Application-Key', 'X-AVOSCloud-Master-Key', 'X-AVOSCloud-Session-Token',
    'X-AVOSCloud-Request-Sign', 'X-AVOSCloud-Application-Production', 'X-Requested-With',
];
function baseUrlOf(req, publicUrl) {
    if (publicUrl)
        return publicUrl.replace(/\/+$/, '');
    return `${req.protocol}://${req.host}`;
}
function queryOf(req) {
    const q = req.query;
    return typeof q === 'object' && q !== null ? q : {};
}
/** Builds the Fastify server: JSON parsing, CORS, compression, health, and the API dispatcher. */
export async function createServer(deps) {
    const policy = deps.policy ?? DEFAULT_HTTP_POLICY;
    const server = Fastify({
        loggerInstance: deps.logger,
        // Per-request log lines cost CPU on every call; errors are still logged by the error handler.
        logController: new LogController({ disableRequestLogging: true }),
        bodyLimit: deps.bodyLimitBytes,
        trustProxy: fastifyTrustProxy(policy.trustProxy),
        genReqId: () => crypto.randomUUID(),
        childLoggerFactory: lazyChildLogger,
        routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2000 },
    });
    await server.register(cors, { ...corsPolicy(policy.corsOrigins), allowedHeaders: CORS_HEADERS, methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], maxAge: 86400 });
    await server.register(compress, { global: true, encodings: ['br', 'gzip', 'deflate'], threshold: 1024 });
    // Every body is JSON, whatever the content type says: SDKs send application/json, and the
    // browser fallback sends text/plain to avoid a CORS preflight.
    server.removeAllContentTypeParsers();
    server.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.bodyLimitBytes }, (_req, body, done) => {
        try {
            done(null, parseJsonBody(body));
        }
        catch (err) {
            done(err, undefined);
        }
    });
    server.setErrorHandler((err, req, reply) => {
        const { status, body } = errorBody(err, (e) => req.log.error({ err: e, reqId: req.id }, 'unhandled error'));
        void reply.code(status).send(body);
    });
    server.setNotFoundHandler((req, reply) => {
        void reply.code(404).send(new ApiError('notFound', `Route not found: ${req.method} ${req.url.split('?')[0].slice(0, 200)}`).toJSON());
    });
    mountObservability(server, { app: deps.app, families: deps.routes.families(), metricsToken: deps.metricsToken, requestLog: deps.requestLog });
    server.get('/health', async (_req, reply) => {
        try {
            if (deps.isDraining?.())
                throw new Error('draining');
            await deps.app.db.ping();
            return { status: 'ok', engine: deps.app.db.engine };
        }
        catch {
            return reply.code(503).send({ status: 'unavailable', engine: deps.app.db.engine });
        }
    });
    server.get('/health/live', async () => ({ status: 'ok' }));
    // Pages behind mailed links (verify email, reset password): HTML, outside /1.1.
    await mountPages(server, deps.app);
    const handle = async (req, reply) => {
        let method = req.method;
        let body = req.body;
        let query = queryOf(req);
        let caller = callerFromHeaders(req.headers);
        const fallback = method === 'POST' ? fromFallbackBody(body) : undefined;
        if (fallback) {
            method = fallback.method;
            caller = fallback.caller;
            body = fallback.body;
            // Old browser SDKs put a GET's (or DELETE's) parameters, e.g. `where`, in the fallback body;
            // they arrive as JSON values, which query-params.ts accepts as it does for batch items.
            // Parameters in the URL win, as in Parse Server's equivalent.
            if (method === 'GET' || method === 'DELETE') {
                query = { ...fallback.body, ...query };
                body = undefined;
            }
        }
        const master = authenticateCaller(deps.app, caller);
        const ctx = makeContext(deps.app, caller, master, baseUrlOf(req, deps.publicUrl));
        const path = canonicalApiPath(req.url.split('?')[0]);
        const res = await dispatch(deps.routes, { method, path, query, body, inBatch: false }, () => ctx);
        if (res.headers)
            void reply.headers(res.headers);
        // Prebuilt JSON text (objects/raw-json.ts) goes out as it is, without serialising again.
        if (res.body instanceof RawJson)
            return reply.code(res.status).type('application/json; charset=utf-8').send(res.body.text);
        return reply.code(res.status).send(res.body);
    };
    // PATCH is taken too so that it gets the API's 405 {code, error} on a known path, not a 404.
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
    server.route({ method: methods, url: '/1.1/*', handler: handle });
    server.route({ method: methods, url: '/1/*', handler: handle });
    for (const prefix of deps.extraPrefixes ?? [])
        server.route({ method: methods, url: `${prefix}/*`, handler: handle });
    return server;
}
export { isApiError };
//# sourceMappingURL=server.js.map