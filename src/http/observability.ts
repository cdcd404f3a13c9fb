/**
 * Metrics and request logs of the HTTP server: one onResponse hook counts every answer by route
 * family, method and status (and logs it at info level when LARDER_REQUEST_LOG=1), and
 * `GET /metrics` serves the process's registry (the whole cluster's with --workers) in Prometheus' text format to the master key or
 * to `Authorization: Bearer <LARDER_METRICS_TOKEN>` (docs/operations.md).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { safeEqual } from '../auth/constant-time.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import { countAnswer, rateLimitRefusals } from '../metrics/core-metrics.ts';
import { watchPool } from '../storage/pool-metrics.ts';
import { collectMetrics, metricsContentType } from '../metrics/cluster-metrics.ts';
import { callerFromHeaders } from './credentials.ts';
import { authenticateCaller } from './dispatch.ts';
import { routeFamily } from './route-family.ts';

/** What the hooks need. */
export interface ObservabilityOptions {
  app: AppContext;
  /** Families the API route table knows (RouteTable.families()). */
  families: ReadonlySet<string>;
  /** Bearer token that may read /metrics besides the master key. */
  metricsToken?: string;
  /** Log every request at info level. */
  requestLog?: boolean;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
/** Routes whose path may carry a token (mailed links, download links): logged by pattern only. */
const TOKEN_PATHS = new Set(['pages', 'export-download']);

/** True when the request may read /metrics; throws the API's 401 for bad keys. */
function mayReadMetrics(app: AppContext, headers: Record<string, string | string[] | undefined>, token: string | undefined): boolean {
  const auth = headers.authorization;
  if (token && typeof auth === 'string' && auth.startsWith('Bearer ')) return safeEqual(auth.slice(7), token);
  return authenticateCaller(app, callerFromHeaders(headers));
}

/** Adds the metrics hook, the optional request log and GET /metrics to the server. */
export function mountObservability(server: FastifyInstance, opts: ObservabilityOptions): void {
  watchPool(opts.app.db);
  // A callback hook, not an async one: no promise and microtask on every answer (issue 16).
  server.addHook('onResponse', (req, reply, done) => {
    const family = routeFamily(req.routeOptions.url, req.url, opts.families);
    const method = METHODS.has(req.method) ? req.method : 'OTHER';
    const status = reply.statusCode;
    const seconds = reply.elapsedTime / 1000;
    countAnswer(family, method, status, seconds);
    if (status === 429) rateLimitRefusals.inc({ family });
    if (opts.requestLog) {
      // Never the query string (download tokens, where clauses); token-bearing paths by pattern.
      const path = TOKEN_PATHS.has(family) ? req.routeOptions.url : req.url.split('?')[0].slice(0, 300);
      req.log.info({ reqId: req.id, method, path, family, status, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    }
    done();
  });
  if (opts.requestLog) {
    server.addHook('onRequest', async (req, reply) => {
      void reply.header('x-request-id', req.id);
    });
  }
  server.get('/metrics', async (req, reply) => {
    let allowed: boolean;
    try {
      allowed = mayReadMetrics(opts.app, req.headers, opts.metricsToken);
    } catch (err) {
      if (!isApiError(err)) throw err;
      return reply.code(err.status).send(err.toJSON());
    }
    if (!allowed) {
      const err = new ApiError('masterKeyRequired', 'Reading /metrics needs the master key or the metrics token.');
      return reply.code(err.status).send(err.toJSON());
    }
    // In a cluster worker: every worker's metrics, collected by the primary (cluster-metrics.ts).
    let text: string;
    try {
      text = await collectMetrics();
    } catch (err) {
      req.log.warn({ reason: (err as Error).message }, 'metrics: could not collect');
      return reply.code(503).type('text/plain').send('The metrics could not be collected; try again.\n');
    }
    return reply.type(metricsContentType).send(text);
  });
}
