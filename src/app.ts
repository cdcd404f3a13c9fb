import type { FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { classRoutes } from './http/routes/classes.ts';
import { miscRoutes } from './http/routes/misc.ts';
import { batchRoutes } from './http/routes/batch.ts';
import { fileRoutes } from './http/routes/files.ts';
import { scanRoutes } from './http/routes/scan.ts';
import { schemaRoutes } from './http/routes/schemas.ts';
import { roleRoutes } from './http/routes/roles.ts';
import { adminRoutes } from './http/routes/admin.ts';
import { userRoutes } from './http/routes/users.ts';
import { emailRoutes } from './http/routes/email.ts';
import { smsRoutes } from './http/routes/sms.ts';
import { exportRoutes, mountExport } from './http/routes/export.ts';
import { mountCloudFunctions } from './http/routes/functions.ts';
import { cloudAdminRoutes } from './http/routes/cloud-admin.ts';
import type { ExportOptions } from './export/export-options.ts';
import { RouteTable } from './http/route-table.ts';
import type { Route } from './http/route.ts';
import { createServer } from './http/server.ts';
import type { Logger } from './log.ts';
import type { LarderModule } from './module-api/larder-module.ts';
import { DEFAULT_HTTP_POLICY, type HttpPolicy } from './http/http-policy.ts';

/** Options of the HTTP app. */
export interface CreateAppOptions {
  logger: Logger;
  bodyLimitBytes?: number;
  publicUrl?: string;
  isDraining?: () => boolean;
  /** Optional services (src/modules/index.ts); none by default. */
  modules?: readonly LarderModule[];
  /** Where and how data exports run (LARDER_EXPORT_*); a temporary directory when absent. */
  exportOptions?: ExportOptions;
  /** CORS and proxy trust (src/http/http-policy.ts); the defaults when absent. */
  policy?: HttpPolicy;
  /** Bearer token that may read /metrics besides the master key. */
  metricsToken?: string;
  /** Log every request at info level. */
  requestLog?: boolean;
  /** Answer the common API requests before Fastify routes them (http/api-fast-path.ts); on unless false. */
  apiFastPath?: boolean;
}

/** Every API route. Batch is added on top because it dispatches into this same table. */
export function apiRoutes(): Route[] {
  return [...classRoutes, ...miscRoutes, ...fileRoutes, ...scanRoutes, ...schemaRoutes, ...roleRoutes, ...adminRoutes, ...userRoutes, ...emailRoutes, ...smsRoutes, ...exportRoutes, ...cloudAdminRoutes];
}

/** Builds the HTTP server for one app. */
export async function createApp(app: AppContext, opts: CreateAppOptions): Promise<FastifyInstance> {
  const modules = opts.modules ?? [];
  // Failures of after-commit write extensions are logged, never sent (src/writes/).
  app.writes.reportTo((err, extension, e) => opts.logger.error({ err, extension, op: e.op, className: e.className, objectId: e.objectId }, 'write extension failed after commit'));
  const routes = [...apiRoutes(), ...modules.flatMap((m) => m.routes())];
  // Batch items are served by the table of every other route (so batches cannot nest).
  const table = new RouteTable([...routes, ...batchRoutes(new RouteTable(routes), opts.logger)]);
  const server = await createServer({
    app,
    routes: table,
    logger: opts.logger,
    bodyLimitBytes: opts.bodyLimitBytes ?? 20 * 1024 * 1024,
    publicUrl: opts.publicUrl,
    isDraining: opts.isDraining,
    extraPrefixes: modules.flatMap((m) => m.prefixes ?? []),
    policy: opts.policy,
    metricsToken: opts.metricsToken,
    requestLog: opts.requestLog,
    apiFastPath: opts.apiFastPath,
  });
  await mountExport(server, app, opts.logger, opts.exportOptions);
  await mountCloudFunctions(server, app, opts.bodyLimitBytes ?? 20 * 1024 * 1024, { policy: opts.policy ?? DEFAULT_HTTP_POLICY, requestLog: opts.requestLog ?? false });
  for (const m of modules) await m.mount?.(server, app, opts.logger);
  return server;
}
