import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { AppContext } from '../app-context.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import { callerFromHeaders, fromFallbackBody, type CallerInfo } from './credentials.ts';
import { authenticateCaller, dispatch, makeContext } from './dispatch.ts';
import type { RouteTable } from './route-table.ts';
import { parseJsonBody } from './json-body.ts';
import { errorBody } from './error-body.ts';
import { canonicalApiPath } from './batch/batch-path.ts';
import { mountPages } from './routes/pages.ts';
import { mountConsole } from './console-route.ts';
import { RawJson } from '../objects/raw-json.ts';
import { lazyChildLogger } from './lazy-child-logger.ts';
import { mountObservability } from './observability.ts';
import type { Logger } from '../log.ts';
import { corsPolicy, fastifyTrustProxy } from './cors-proxy.ts';
import { DEFAULT_HTTP_POLICY, type HttpPolicy } from './http-policy.ts';
import { createRateLimiter, NO_RATE_LIMITS, requestCost } from './rate-limit.ts';

/** What the HTTP server needs. */
export interface ServerDeps {
  app: AppContext;
  routes: RouteTable;
  logger: Logger;
  bodyLimitBytes: number;
  publicUrl?: string;
  /** Extra readiness checks beyond the database (e.g. draining on shutdown). */
  isDraining?: () => boolean;
  /** Path prefixes of optional modules (e.g. '/friend') served by the same dispatcher. */
  extraPrefixes?: readonly string[];
  /** CORS, trusted proxies (http-policy.ts); the defaults when absent. */
  policy?: HttpPolicy;
  /** Bearer token that may read /metrics besides the master key (LARDER_METRICS_TOKEN). */
  metricsToken?: string;
  /** Log every request at info level (LARDER_REQUEST_LOG=1). */
  requestLog?: boolean;
}

const CORS_HEADERS = [
  'Content-Type', 'X-LC-Id', 'X-LC-Key', 'X-LC-Sign', 'X-LC-Session', 'X-LC-Prod', 'X-LC-UA', 'X-LC-Hook-Key',
  'X-AVOSCloud-Application-Id', 'X-AVOSCloud-Application-Key', 'X-AVOSCloud-Master-Key', 'X-AVOSCloud-Session-Token',
  'X-AVOSCloud-Request-Sign', 'X-AVOSCloud-Application-Production', 'X-Requested-With',
];

function baseUrlOf(req: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.host}`;
}

function queryOf(req: FastifyRequest): Record<string, unknown> {
  const q = req.query;
  return typeof q === 'object' && q !== null ? (q as Record<string, unknown>) : {};
}

/** Builds the Fastify server: JSON parsing, CORS, compression, health, and the API dispatcher. */
export async function createServer(deps: ServerDeps): Promise<FastifyInstance> {
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
  const limiter = createRateLimiter(policy.rateLimits ?? NO_RATE_LIMITS);
  server.decorate('larderRateLimiter', limiter);
  await server.register(compress, { global: true, encodings: ['br', 'gzip', 'deflate'], threshold: 1024 });

  // Every body is JSON, whatever the content type says: SDKs send application/json, and the
  // browser fallback sends text/plain to avoid a CORS preflight.
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.bodyLimitBytes }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  server.setErrorHandler((err: unknown, req, reply) => {
    const { status, body } = errorBody(err, (e) => req.log.error({ err: e, reqId: req.id }, 'unhandled error'));
    void reply.code(status).send(body);
  });
  server.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(new ApiError('notFound', `Route not found: ${req.method} ${req.url.split('?')[0].slice(0, 200)}`).toJSON());
  });

  mountObservability(server, { app: deps.app, families: deps.routes.families(), metricsToken: deps.metricsToken, requestLog: deps.requestLog });
  server.get('/health', async (_req, reply) => {
    try {
      if (deps.isDraining?.()) throw new Error('draining');
      await deps.app.db.ping();
      return { status: 'ok', engine: deps.app.db.engine };
    } catch {
      return reply.code(503).send({ status: 'unavailable', engine: deps.app.db.engine });
    }
  });
  server.get('/health/live', async () => ({ status: 'ok' }));
  // Pages behind mailed links (verify email, reset password): HTML, outside /1.1.
  await mountPages(server, deps.app);
  // The web console's static page and modules (console-route.ts).
  mountConsole(server);

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    let method = req.method;
    let body: unknown = req.body;
    let query = queryOf(req);
    let caller: CallerInfo = callerFromHeaders(req.headers);
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
    const path = canonicalApiPath(req.url.split('?')[0]);
    if (!master) {
      const wait = limiter.take(req.ip, caller.sessionToken, requestCost(path, method, body));
      if (wait > 0) {
        void reply.header('retry-after', String(wait));
        throw new ApiError('tooManyRequests');
      }
    }
    const ctx = makeContext(deps.app, caller, master, baseUrlOf(req, deps.publicUrl));
    const res = await dispatch(deps.routes, { method, path, query, body, inBatch: false }, () => ctx);
    if (res.headers) void reply.headers(res.headers);
    // Prebuilt JSON text (objects/raw-json.ts) goes out as it is, without serialising again.
    if (res.body instanceof RawJson) return reply.code(res.status).type('application/json; charset=utf-8').send(res.body.text);
    return reply.code(res.status).send(res.body);
  };
  // PATCH is taken too so that it gets the API's 405 {code, error} on a known path, not a 404.
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
  server.route({ method: methods, url: '/1.1/*', handler: handle });
  server.route({ method: methods, url: '/1/*', handler: handle });
  for (const prefix of deps.extraPrefixes ?? []) server.route({ method: methods, url: `${prefix}/*`, handler: handle });
  return server;
}

export { isApiError };
