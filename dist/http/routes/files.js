import { ApiError } from '../../errors/api-error.js';
import { createExternalFile } from '../../files/create-external-file.js';
import { FILE_CLASS, uploadUnsupported } from '../../files/file-class.js';
import { deleteObjects } from '../../objects/delete-object.js';
import { isValidObjectId } from '../../objects/object-id.js';
import { findRoute, getRoute } from './classes.js';
import { ok } from '../route.js';
async function create(req) {
    const created = await createExternalFile(req.ctx, req.body);
    return ok({ objectId: created.objectId, createdAt: created.createdAt }, 201, { Location: `${req.ctx.baseUrl}/1.1/files/${created.objectId}` });
}
/** DELETE of a file (what the JS SDK's file.destroy() sends): write ACL applies; a missing file is {}. */
async function destroy(req) {
    const ids = req.params.objectId.split(',');
    for (const id of ids)
        if (!isValidObjectId(id))
            throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
    await deleteObjects(req.ctx, FILE_CLASS, ids);
    return ok({});
}
const unsupported = async () => {
    throw uploadUnsupported();
};
/**
 * The class of files: /1.1/files for external-file records, and `files` as the public name of
 * the _File class under /1.1/classes (queries, get, delete, create by URL). File records are
 * not edited through the API (LeanCloud treats them as immutable), and content uploads are
 * refused with a clear error.
 */
export const fileRoutes = [
    { method: 'POST', path: '/1.1/files', handler: create },
    { method: 'GET', path: '/1.1/files/:objectId', handler: (req) => getRoute(req, FILE_CLASS) },
    { method: 'DELETE', path: '/1.1/files/:objectId', handler: destroy },
    // Raw upload of content under a name (old REST API), and the SDKs' upload-token flow.
    { method: 'POST', path: '/1.1/files/:name', handler: unsupported },
    { method: 'POST', path: '/1.1/fileTokens', handler: unsupported },
    { method: 'POST', path: '/1.1/fileCallback', handler: unsupported },
    { method: 'POST', path: '/1.1/qiniu', handler: unsupported },
    { method: 'GET', path: '/1.1/classes/files', handler: (req) => findRoute(req, FILE_CLASS) },
    { method: 'POST', path: '/1.1/classes/files', handler: create },
    { method: 'GET', path: '/1.1/classes/files/:objectId', handler: (req) => getRoute(req, FILE_CLASS) },
    { method: 'DELETE', path: '/1.1/classes/files/:objectId', handler: destroy },
    {
        method: 'PUT',
        path: '/1.1/classes/files/:objectId',
        handler: async () => {
            throw new ApiError('forbidden', 'File records cannot be changed; delete the file and save a new one.');
        },
    },
];
//# sourceMappingURL=files.js.map