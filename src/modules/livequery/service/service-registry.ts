import type { AppContext } from '../../../module-api/context.ts';
import type { LiveQueryService } from './live-service.ts';

// One service per app (not per process): two apps in one process (tests) stay apart.
const services = new WeakMap<AppContext, LiveQueryService>();

/** The app's LiveQuery service in this process, once mounted. */
export function liveQueryOf(app: AppContext): LiveQueryService | undefined {
  return services.get(app);
}

/** Records the app's service (mount). */
export function setLiveQuery(app: AppContext, service: LiveQueryService): void {
  services.set(app, service);
}

/** Forgets the app's service (server closed). */
export function dropLiveQuery(app: AppContext): void {
  services.delete(app);
}
