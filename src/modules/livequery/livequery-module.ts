import type { LarderModule } from '../../module-api/larder-module.ts';
import { mountRouteDiscovery } from './http/route-discovery.ts';
import { liveQueryRoutes } from './http/subscribe-routes.ts';
import { liveQueryWriteExtension } from './events/write-listener.ts';
import { LiveQueryService, type LiveQueryTiming } from './service/live-service.ts';
import { dropLiveQuery, setLiveQuery } from './service/service-registry.ts';
import { mountLiveSocket } from './socket/mount-socket.ts';

/** Options of the LiveQuery module (config: LARDER_PUBLIC_URL, LARDER_LIVEQUERY_*). */
export interface LiveQueryModuleOptions {
  /** Public base URL; GET /v1/route derives the WebSocket address from it (else from the request). */
  readonly publicUrl?: string;
  readonly timing?: Partial<LiveQueryTiming>;
}

/** Defaults of the reconnect window and the process lease (docs/livequery.md). */
export const DEFAULT_TIMING: LiveQueryTiming = { windowMs: 60_000, leaseMs: 15_000 };

/**
 * LiveQuery (docs/livequery.md): `AV.Query#subscribe()` of the official SDKs. Route discovery,
 * the realtime WebSocket, subscribe/unsubscribe, and pushes for every committed write.
 */
export function liveQueryModule(options: LiveQueryModuleOptions = {}): LarderModule {
  const timing: LiveQueryTiming = { ...DEFAULT_TIMING, ...options.timing };
  return {
    name: 'livequery',
    routes: () => liveQueryRoutes,
    async mount(server, app, logger) {
      const service = new LiveQueryService(app, logger, timing);
      await service.start();
      setLiveQuery(app, service);
      const unregister = app.writes.register(liveQueryWriteExtension(service));
      // Which classes have subscriptions decides which writes the pipeline reports to us.
      service.registry.onClassesChanged(() => app.writes.changed());
      mountRouteDiscovery(server, app, options.publicUrl);
      const socket = mountLiveSocket(server, app, service, logger);
      server.addHook('preClose', async () => socket.closeAll());
      server.addHook('onClose', async () => {
        unregister();
        dropLiveQuery(app, service);
        await service.stop();
      });
    },
  };
}
