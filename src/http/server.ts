import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { AppContext } from '../app-context.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import type { RouteTable } from './route-table.ts';
import { parseJsonBody } from './json-body.ts';
import { errorBody } from './error-body.ts';
import { mountPages } from './routes/pages.ts';
import { mountConsole } from './console-route.ts';
import { RawJson } from '../objects/raw-json.ts';
import { lazyChildLogger } from './lazy-child-logger.ts';
import { mountObservability } from './observability.ts';
import type { Logger } from '../log.ts';
import { corsPolicy, fastifyTrustProxy } from './cors-proxy.ts';
import { DEFAULT_HTTP_POLICY, type HttpPolicy } from './http-policy.ts';
import { createRateLimiter, NO_RATE_LIMITS } from './rate-limit.ts';
import { answerApi } from './api-request.ts';
import type { HandedOff } from './api-handoff.ts';
import { apiFastPath } from './api-fast-path.ts';
import { beforeFastify, takeHandedOver, type PreRoute } from './pre-routing.ts';
import { parseQueryString } from './query-string.ts';

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
  /** Answer the common API requests before Fastify routes them (api-fast-path.ts); on unless false. */
  apiFastPath?: boolean;
}

const CORS_HEADERS = [
  'Content-Type', 'X-LC-Id', 'X-LC-Key', 'X-LC-Sign', 'X-LC-Session', 'X-LC-Prod', 'X-LC-UA', 'X-LC-Hook-Key',
  'X-AVOSCloud-Application-Id', 'X-AVOSCloud-Application-Key', 'X-AVOSCloud-Master-Key', 'X-AVOSCloud-Session-Token',
  'X-AVOSCloud-Request-Sign', 'X-AVOSCloud-Application-Production', 'X-Requested-With',
];

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
    // The query string parser is named so that the API fast path parses alike (query-string.ts).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2000, querystringParser: parseQueryString },
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

  const serving = { app: deps.app, routes: deps.routes, limiter, publicUrl: deps.publicUrl };
  const handed: HandedOff = new WeakMap();
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    // A request the fast path answered and left to Fastify to send (api-handoff.ts).
    const settled = takeHandedOver(handed, req.raw);
    if (settled && 'error' in settled) {
      if (settled.retryAfter !== undefined) void reply.header('retry-after', String(settled.retryAfter));
      throw settled.error;
    }
    const call = { method: req.method, url: req.url, query: queryOf(req), body: req.body, headers: req.headers, ip: req.ip, protocol: req.protocol };
    const res = settled ? settled.response : await answerApi(serving, call, (wait) => void reply.header('retry-after', String(wait)));
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
  const settings = { ...serving, policy, requestLog: deps.requestLog ?? false, bodyLimitBytes: deps.bodyLimitBytes, logger: deps.logger, families: deps.routes.families() };
  const fast = deps.apiFastPath === false ? undefined : apiFastPath(settings, handed);
  if (fast) beforeFastify(server, fast);
  // Modules' own handlers (files: PUT upload_url) run before Fastify under the same conditions.
  server.decorate('larderPreRoute', (handler: PreRoute) => fast !== undefined && beforeFastify(server, handler));
  return server;
}

export { isApiError };
