import { ApiError } from '../../errors/api-error.ts';
import { isPlainObject } from '../../model/plain-object.ts';
import { addIndex, dropIndex, listIndexes } from '../../admin/indexes.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../route.ts';

/** The field named by an index-creation body `{"field": "<name>"}`. */
function fieldOf(body: unknown): string {
  if (!isPlainObject(body) || typeof body.field !== 'string' || Object.keys(body).length !== 1) {
    throw new ApiError('invalidJson', 'Expected {"field": "<field name>"}.');
  }
  return body.field;
}

/** The optional `className` filter of the index list. */
function classFilter(req: ApiRequest): string | undefined {
  const c = req.query.className;
  if (c === undefined) return undefined;
  if (typeof c !== 'string') throw new ApiError('invalidJson', 'className must be a string.');
  return c;
}

/**
 * The index use-cases of `larder index` over HTTP (docs/indexes.md), for the web console and for
 * the CLI while a server holds the embedded data directory. Wrapped by admin.ts (master key only).
 * On PostgreSQL a build here is bound by the statement timeout; the CLI has none.
 */
export function indexRoutes(guard: (handler: (req: ApiRequest) => Promise<ApiResponse>) => (req: ApiRequest) => Promise<ApiResponse>): Route[] {
  return [
    { method: 'GET', path: '/1.1/larder/indexes', handler: guard(async (req) => ok({ results: await listIndexes(req.ctx.app, classFilter(req)) })) },
    {
      method: 'POST',
      path: '/1.1/larder/classes/:className/indexes',
      handler: guard(async (req) => {
        const res = await addIndex(req.ctx.app, req.params.className, fieldOf(req.body));
        return ok(res, res.outcome === 'created' ? 201 : 200);
      }),
    },
    {
      method: 'DELETE',
      path: '/1.1/larder/classes/:className/indexes/:field',
      handler: guard(async (req) => ok(await dropIndex(req.ctx.app, req.params.className, req.params.field))),
    },
  ];
}
