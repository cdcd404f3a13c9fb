import { getClassPermissions, getDefaultAcl, setClassPermissions, setDefaultAcl } from '../../auth/class-security-admin.ts';
import { ApiError } from '../../errors/api-error.ts';
import { isPlainObject } from '../../model/plain-object.ts';
import { changeSettings, readSettings } from '../../admin/change-settings.ts';
import { indexRoutes } from './admin-indexes.ts';
import { addField } from '../../schema/add-field.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../route.ts';

/** Every admin route answers only to the master key (403, code 1 otherwise). */
function masterOnly(handler: (req: ApiRequest) => Promise<ApiResponse>): (req: ApiRequest) => Promise<ApiResponse> {
  return (req) => {
    if (!req.ctx.master) throw new ApiError('masterKeyRequired');
    return handler(req);
  };
}

function defaultAclOf(body: unknown): unknown {
  if (!isPlainObject(body) || !Object.hasOwn(body, 'defaultACL') || Object.keys(body).length !== 1) {
    throw new ApiError('invalidJson', 'Expected {"defaultACL": <ACL object, or null to clear>}.');
  }
  return body.defaultACL;
}

/**
 * Larder's admin endpoint (docs/admin.md): app settings LeanCloud kept as console options, and
 * each class's permissions and default ACL. Master key only; changes reach every process.
 */
export const adminRoutes: Route[] = [
  { method: 'GET', path: '/1.1/larder/settings', handler: masterOnly(async (req) => ok(await readSettings(req.ctx.app))) },
  { method: 'PUT', path: '/1.1/larder/settings', handler: masterOnly(async (req) => ok(await changeSettings(req.ctx.app, req.body))) },
  {
    method: 'GET',
    path: '/1.1/larder/classes/:className/permissions',
    handler: masterOnly(async (req) => ok(await getClassPermissions(req.ctx.app, req.params.className))),
  },
  {
    method: 'PUT',
    path: '/1.1/larder/classes/:className/permissions',
    handler: masterOnly(async (req) => ok(await setClassPermissions(req.ctx.app, req.params.className, req.body))),
  },
  {
    method: 'GET',
    path: '/1.1/larder/classes/:className/defaultACL',
    handler: masterOnly(async (req) => ok({ defaultACL: await getDefaultAcl(req.ctx.app, req.params.className) })),
  },
  {
    method: 'PUT',
    path: '/1.1/larder/classes/:className/defaultACL',
    handler: masterOnly(async (req) => ok({ defaultACL: await setDefaultAcl(req.ctx.app, req.params.className, defaultAclOf(req.body)) })),
  },
  {
    method: 'POST',
    path: '/1.1/larder/classes/:className/fields',
    handler: masterOnly(async (req) => ok(await addField(req.ctx.app, req.params.className, req.body), 201)),
  },
  ...indexRoutes(masterOnly),
];
