import { ApiError } from '../../errors/api-error.ts';
import { createExternalFile } from '../../files/create-external-file.ts';
import { FILE_CLASS } from '../../files/file-class.ts';
import { findRoute, getRoute } from './classes.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../route.ts';

async function create(req: ApiRequest): Promise<ApiResponse> {
  const created = await createExternalFile(req.ctx, req.body);
  return ok({ objectId: created.objectId, createdAt: created.createdAt }, 201, { Location: `${req.ctx.baseUrl}/1.1/files/${created.objectId}` });
}

/**
 * The class of files: /1.1/files for external-file records, and `files` as the public name of
 * the _File class under /1.1/classes (queries, get, create by URL). File records are not edited
 * through the API (LeanCloud treats them as immutable). Uploads, serving and deletes (which
 * remove the bytes too) belong to the files module (src/modules/files/).
 */
export const fileRoutes: Route[] = [
  { method: 'POST', path: '/1.1/files', handler: create },
  { method: 'GET', path: '/1.1/files/:objectId', handler: (req) => getRoute(req, FILE_CLASS) },
  { method: 'GET', path: '/1.1/classes/files', handler: (req) => findRoute(req, FILE_CLASS) },
  { method: 'POST', path: '/1.1/classes/files', handler: create },
  { method: 'GET', path: '/1.1/classes/files/:objectId', handler: (req) => getRoute(req, FILE_CLASS) },
  {
    method: 'PUT',
    path: '/1.1/classes/files/:objectId',
    handler: async () => {
      throw new ApiError('forbidden', 'File records cannot be changed; delete the file and save a new one.');
    },
  },
];
