import { appSlot } from '../../../module-api/app-state.ts';
import type { AppContext } from '../../../module-api/context.ts';
import type { LiveQueryService } from './live-service.ts';

// One service per app (not per process): two apps in one process (tests) stay apart.
const SERVICE = appSlot<LiveQueryService>('livequery.service');

/** The app's LiveQuery service in this process, once mounted. */
export function liveQueryOf(app: AppContext): LiveQueryService | undefined {
  return app.scope.get(SERVICE);
}

/** Records the app's service (mount); closing the app stops it if the server did not. */
export function setLiveQuery(app: AppContext, service: LiveQueryService): void {
  app.scope.put(SERVICE, service, () => service.stop());
}

/** Forgets the app's service (server closed: the mount stops it itself). */
export function dropLiveQuery(app: AppContext, service: LiveQueryService): void {
  app.scope.release(SERVICE, service);
}
