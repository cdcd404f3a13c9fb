import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { createFileRecord } from './new-file-record.ts';
import { newUploadToken, tokenHash } from './file-key.ts';
import type { FileRecord } from './file-records.ts';
import type { FilesService } from './files-service.ts';
import { removeFile } from './remove-file.ts';
import { isPlainObject } from '../../module-api/data.ts';
import { filesError } from './files-errors.ts';

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ApiError('badRequest', `The file "${field}" must be a string.`);
  return v;
}

/** The fileTokens answer: every field a string (the Go SDK rejects anything else). */
export interface FileTokenAnswer {
  objectId: string;
  createdAt: string;
  url: string;
  token: string;
  upload_url: string;
  provider: 's3';
  bucket: string;
  key: string;
  mime_type: string;
}

/**
 * POST /1.1/fileTokens (spec: leancloud-services §1): creates the `_File` record with a pending
 * upload and answers where to PUT the bytes. `provider` is always "s3", the one provider every
 * SDK uploads with a plain PUT: on local disk `upload_url` is this server's upload endpoint
 * (the token in its path is the credential), on S3 a presigned PUT to the bucket.
 */
export async function createFileToken(ctx: RequestContext, svc: FilesService, body: unknown): Promise<FileTokenAnswer> {
  if (!isPlainObject(body)) throw new ApiError('invalidJson', 'A fileTokens body must be a JSON object {"name", "mime_type", "metaData", ...}.');
  const metaData = body.metaData;
  if (metaData !== undefined && metaData !== null && !isPlainObject(metaData)) throw new ApiError('badRequest', 'The file "metaData" must be an object.');
  const declaredSize = isPlainObject(metaData) ? metaData.size : undefined;
  if (typeof declaredSize === 'number' && declaredSize > svc.opts.maxBytes) {
    throw filesError('fileTooLarge', `The file is larger than ${svc.opts.maxBytes} bytes, the most this server accepts (LARDER_FILE_MAX_BYTES).`);
  }
  const keep = body.keep_file_name;
  if (keep !== undefined && keep !== null && typeof keep !== 'boolean') throw new ApiError('badRequest', 'The file "keep_file_name" must be a boolean.');
  const token = newUploadToken();
  // Taken before the row is written, so this process never thinks the token valid for longer than its row says.
  const validUntil = Date.now() + svc.opts.tokenTtlSeconds * 1000;
  const file = await createFileRecord(ctx, svc, {
    name: body.name as string,
    mimeType: optionalString(body, 'mime_type'),
    metaData: isPlainObject(metaData) ? metaData : undefined,
    acl: body.ACL ?? undefined,
    key: optionalString(body, 'key'),
    prefix: optionalString(body, 'prefix'),
    keepFileName: keep === true,
    token,
    state: 'pending',
  });
  let uploadUrl: string;
  try {
    const direct = await svc.store.directUpload(file.blob, {
      contentType: file.mimeType,
      size: typeof declaredSize === 'number' && Number.isInteger(declaredSize) && declaredSize > 0 ? declaredSize : -1,
      ttlSeconds: svc.opts.tokenTtlSeconds,
    });
    uploadUrl = direct?.url ?? `${ctx.baseUrl}/larder/upload/${token}`;
    if (!direct) {
      const row: FileRecord = { object_id: file.objectId, key: file.key, blob: file.blob, state: 'pending', mime_type: file.mimeType, name: file.name, size: null, md5: null };
      svc.issuedTokens.add(tokenHash(token), row, validUntil);
    }
  } catch (err) {
    await removeFile(svc, file.objectId, ['pending']);
    throw err;
  }
  return {
    objectId: file.objectId,
    createdAt: file.createdAt,
    url: file.url,
    token,
    upload_url: uploadUrl,
    provider: 's3',
    bucket: svc.store.bucket,
    key: file.key,
    mime_type: file.mimeType,
  };
}
