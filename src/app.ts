import type { FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { classRoutes } from './http/routes/classes.ts';
import { miscRoutes } from './http/routes/misc.ts';
import { RouteTable } from './http/route-table.ts';
import type { Route } from './http/route.ts';
import { createServer } from './http/server.ts';
import type { Logger } from './log.ts';

/** Options of the HTTP app. */
export interface CreateAppOptions {
  logger: Logger;
  bodyLimitBytes?: number;
  publicUrl?: string;
  isDraining?: () => boolean;
}

/** Every API route. Batch is added on top because it dispatches into this same table. */
export function apiRoutes(): Route[] {
  return [...classRoutes, ...miscRoutes];
}

/** Builds the HTTP server for one app. */
export async function createApp(app: AppContext, opts: CreateAppOptions): Promise<FastifyInstance> {
  const table = new RouteTable(apiRoutes());
  return createServer({
    app,
    routes: table,
    logger: opts.logger,
    bodyLimitBytes: opts.bodyLimitBytes ?? 20 * 1024 * 1024,
    publicUrl: opts.publicUrl,
    isDraining: opts.isDraining,
  });
}
