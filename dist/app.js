import { classRoutes } from './http/routes/classes.js';
import { miscRoutes } from './http/routes/misc.js';
import { batchRoutes } from './http/routes/batch.js';
import { fileRoutes } from './http/routes/files.js';
import { scanRoutes } from './http/routes/scan.js';
import { schemaRoutes } from './http/routes/schemas.js';
import { roleRoutes } from './http/routes/roles.js';
import { adminRoutes } from './http/routes/admin.js';
import { userRoutes } from './http/routes/users.js';
import { emailRoutes } from './http/routes/email.js';
import { smsRoutes } from './http/routes/sms.js';
import { exportRoutes, mountExport } from './http/routes/export.js';
import { RouteTable } from './http/route-table.js';
import { createServer } from './http/server.js';
/** Every API route. Batch is added on top because it dispatches into this same table. */
export function apiRoutes() {
    return [...classRoutes, ...miscRoutes, ...fileRoutes, ...scanRoutes, ...schemaRoutes, ...roleRoutes, ...adminRoutes, ...userRoutes, ...emailRoutes, ...smsRoutes, ...exportRoutes];
}
/** Builds the HTTP server for one app. */
export async function createApp(app, opts) {
    const modules = opts.modules ?? [];
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
    });
    await mountExport(server, app, opts.logger, opts.exportOptions);
    for (const m of modules)
        await m.mount?.(server, app, opts.logger);
    return server;
}
//# sourceMappingURL=app.js.map