/**
 * Larder's admin endpoints for cloud code (master key only, docs/cloud-code.md):
 * `GET /1.1/larder/engine` shows the engine configuration, the hook list every process uses
 * and the failure counters; `POST /1.1/larder/engine/refresh` reads the engine's hook list
 * again at once and shares it with every process (as `larder engine refresh` does);
 * `/1.1/larder/schedules` manages scheduled cloud functions and shows their run log.
 */
import { changeSchedule, createSchedule, deleteSchedule, getSchedule, listSchedules, scheduleRuns } from '../../cloud/schedules.ts';
import { ApiError } from '../../errors/api-error.ts';
import { parseLimit } from '../../query/limits.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../route.ts';

function masterOnly(handler: (req: ApiRequest) => Promise<ApiResponse>): (req: ApiRequest) => Promise<ApiResponse> {
  return (req) => {
    if (!req.ctx.master) throw new ApiError('masterKeyRequired');
    return handler(req);
  };
}

/** The cloud code admin routes. */
export const cloudAdminRoutes: Route[] = [
  {
    method: 'GET',
    path: '/1.1/larder/engine',
    handler: masterOnly(async (req) => {
      const cloud = req.ctx.app.cloud;
      if (!cloud) return ok({ configured: false });
      const list = cloud.hooks.snapshot();
      return ok({
        configured: true,
        engineUrl: cloud.options.engineUrl,
        stagingUrl: cloud.options.stagingUrl ?? null,
        hooks: list.names,
        refreshedAt: list.refreshedAt || null,
        counters: { ...cloud.counters },
      });
    }),
  },
  {
    method: 'POST',
    path: '/1.1/larder/engine/refresh',
    handler: masterOnly(async (req) => {
      const cloud = req.ctx.app.cloud;
      if (!cloud) throw new ApiError('engineNotConfigured');
      return ok({ result: await cloud.refresh(req.ctx.app) });
    }),
  },
  { method: 'GET', path: '/1.1/larder/schedules', handler: masterOnly(async (req) => ok({ results: await listSchedules(req.ctx.app.db) })) },
  { method: 'POST', path: '/1.1/larder/schedules', handler: masterOnly(async (req) => ok(await createSchedule(req.ctx.app.db, req.body), 201)) },
  { method: 'GET', path: '/1.1/larder/schedules/:id', handler: masterOnly(async (req) => ok(await getSchedule(req.ctx.app.db, req.params.id))) },
  { method: 'PUT', path: '/1.1/larder/schedules/:id', handler: masterOnly(async (req) => ok(await changeSchedule(req.ctx.app.db, req.params.id, req.body))) },
  {
    method: 'DELETE',
    path: '/1.1/larder/schedules/:id',
    handler: masterOnly(async (req) => {
      await deleteSchedule(req.ctx.app.db, req.params.id);
      return ok({});
    }),
  },
  {
    method: 'GET',
    path: '/1.1/larder/schedules/:id/runs',
    handler: masterOnly(async (req) => ok({ results: await scheduleRuns(req.ctx.app.db, req.params.id, parseLimit(req.query.limit)) })),
  },
];
