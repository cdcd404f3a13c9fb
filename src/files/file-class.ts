import { ApiError } from '../errors/api-error.ts';

/** The table that holds file records. */
export const FILE_CLASS = '_File';

/** The public name of the class of files (spec: "The class of files is named files"). */
export const FILES_ALIAS = 'files';

/** Maps the public name `files` to the `_File` class; other names are returned unchanged. */
export function fileClassAlias(className: string): string {
  return className === FILES_ALIAS ? FILE_CLASS : className;
}

/**
 * The error for file content sent inside the JSON body of POST /1.1/files (`base64`, `key`):
 * content is uploaded through POST /1.1/fileTokens + PUT upload_url (what the SDKs do) or as
 * the raw body of POST /1.1/files/<name>. Code 1 / HTTP 400.
 */
export function uploadUnsupported(): ApiError {
  return new ApiError(
    'badRequest',
    'File content cannot be sent in the JSON body of POST /1.1/files: upload it with POST /1.1/fileTokens and a PUT to upload_url (as the SDKs do), or as the raw body of POST /1.1/files/<name>.',
  );
}
