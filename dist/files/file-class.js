import { ApiError } from '../errors/api-error.js';
/** The table that holds file records. */
export const FILE_CLASS = '_File';
/** The public name of the class of files (spec: "The class of files is named files"). */
export const FILES_ALIAS = 'files';
/** Maps the public name `files` to the `_File` class; other names are returned unchanged. */
export function fileClassAlias(className) {
    return className === FILES_ALIAS ? FILE_CLASS : className;
}
/**
 * The error for any attempt to upload file content (/1.1/fileTokens, /1.1/qiniu, raw
 * /1.1/files/<name>): the spec leaves uploads to other tools, and Larder keeps file records
 * only. Code 1 / HTTP 400, the way LeanCloud reports unusable parameters.
 */
export function uploadUnsupported() {
    return new ApiError('badRequest', 'Uploading file content is not supported by this server: it stores file records only. Save a file by its URL (e.g. AV.File.withURL(name, url).save()) after uploading it elsewhere.');
}
//# sourceMappingURL=file-class.js.map