import { ApiError } from '../../module-api/errors.ts';
import { byToken, commitUpload } from './file-records.ts';
import { tokenHash } from './file-key.ts';
import type { FilesService } from './files-service.ts';
import { removeFile } from './remove-file.ts';
import { isPlainObject } from '../../module-api/data.ts';
import { filesError } from './files-errors.ts';

/**
 * POST /1.1/fileCallback {token, result} (spec: leancloud-services §1). `result: false` abandons
 * an upload that has not been committed: its record and any bytes go. `result: true` commits a
 * direct upload to S3 after checking the object (its size against the limit; its md5 becomes
 * `_checksum`); on local disk the PUT itself committed the file, so it only confirms. A
 * committed file is never removed by its token: that is what DELETE /1.1/files/<id> is for.
 */
export async function fileCallback(svc: FilesService, body: unknown): Promise<Record<string, never>> {
  if (!isPlainObject(body) || typeof body.token !== 'string' || body.token.length === 0 || body.token.length > 200) {
    throw new ApiError('badRequest', 'fileCallback needs {"token": "<token of fileTokens>", "result": true|false}.');
  }
  const result = body.result;
  if (typeof result !== 'boolean') throw new ApiError('badRequest', 'The fileCallback "result" must be true or false.');
  const hash = tokenHash(body.token);
  // Committed by this process moments ago (the SDKs call back right after their PUT): a
  // committed file answers {} whatever `result` says, so no statement is needed.
  if (svc.recentCommits.has(hash)) return {};
  const row = await byToken(svc.app.db, hash);
  if (!row) throw filesError('uploadTokenInvalid');
  if (!result) {
    if (row.state !== 'committed') await removeFile(svc, row.object_id, ['pending']);
    return {};
  }
  if (row.state === 'committed') return {};
  if (svc.store.kind === 'local' || row.state !== 'pending') {
    // Nothing was PUT yet (or a PUT is still running): there is nothing to commit.
    throw new ApiError('badRequest', 'The file has not been uploaded: PUT its bytes to upload_url first.');
  }
  const stored = await svc.store.stat(row.blob);
  if (!stored) throw new ApiError('badRequest', 'The file has not been uploaded: PUT its bytes to upload_url first.');
  if (stored.size > svc.opts.maxBytes) {
    await removeFile(svc, row.object_id, ['pending']);
    throw filesError('fileTooLarge', `The file is larger than ${svc.opts.maxBytes} bytes, the most this server accepts (LARDER_FILE_MAX_BYTES).`);
  }
  if ((await commitUpload(svc.app.db, row.object_id, stored, ['pending'])) !== 'committed') throw filesError('fileGone');
  return {};
}
