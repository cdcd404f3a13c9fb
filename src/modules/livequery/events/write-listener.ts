/**
 * LiveQuery's place in the write pipeline (docs/architecture.md, "Write pipeline"): an after
 * extension that hands every committed write of a subscribed class to the service, with the
 * object before (updates ask the pipeline for it; deletes always carry it) and after. Every
 * write path reports through the pipeline: REST, batch, batch/save, users and logins, roles,
 * cloud-code hooks' own writes (they are API writes), friendship rows (`module`). `larder
 * import` and `larder sync` cause no events, as they run no hooks (docs/livequery.md).
 */
import type { WriteEvent, WriteExtension, WriteKind, WriteSource } from '../../../module-api/writes.ts';
import type { LiveQueryService } from '../service/live-service.ts';

/** Sources whose writes cause events. */
const LIVE_SOURCES: ReadonlySet<WriteSource> = new Set(['api', 'module', 'internal']);

/** The extension of one app's service. */
export function liveQueryWriteExtension(service: LiveQueryService): WriteExtension {
  return {
    name: 'livequery',
    interest(className: string, op: WriteKind, source: WriteSource) {
      if (!LIVE_SOURCES.has(source) || !service.registry.watches(className)) return undefined;
      return op === 'update' ? { after: true, previous: true } : { after: true };
    },
    after(event: WriteEvent) {
      return service.publish({
        className: event.className,
        kind: event.op,
        ...(event.object ? { object: event.object } : {}),
        ...(event.previous ? { previous: event.previous } : {}),
        ...(event.updatedKeys ? { updatedKeys: event.updatedKeys } : {}),
      });
    },
  };
}
