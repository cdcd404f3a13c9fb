import type { Readable } from 'node:stream';
import { ApiError } from '../../module-api/errors.ts';
import { claimUpload, commitUpload, releaseUpload, type FileRecord } from './file-records.ts';
import { tokenHash } from './file-key.ts';
import type { FilesService } from './files-service.ts';
import type { StoredBlob } from './blob-store.ts';
import { filesError } from './files-errors.ts';

/**
 * Stores the bytes of a claimed upload and commits them: size and `_checksum` in the record are
 * what was written. When the file was deleted while its bytes arrived, the bytes are removed and
 * the upload answers fileGone.
 */
export async function storeAndCommit(svc: FilesService, row: FileRecord, body: Readable): Promise<StoredBlob> {
  const stored = await svc.store.write(row.blob, body, { maxBytes: svc.opts.maxBytes, contentType: row.mime_type });
  if (!(await commitUpload(svc.app.db, row.object_id, stored, ['uploading']))) {
    await svc.store.remove(row.blob);
    throw filesError('fileGone');
  }
  return stored;
}

/**
 * PUT <upload_url> on local storage: the token (from the URL path) authorises exactly one
 * upload of its file until it expires. A concurrent second PUT of the token, a used or expired
 * token and an unknown one all get the same 403. A failed upload (too large, connection lost)
 * gives the token back, so the client may try again while it is valid.
 */
export async function receiveTokenUpload(svc: FilesService, token: string, body: Readable): Promise<StoredBlob> {
  const hash = token.length <= 200 ? tokenHash(token) : undefined;
  const row = hash ? await claimUpload(svc.app.db, hash) : undefined;
  if (!hash || !row) throw filesError('uploadTokenInvalid');
  try {
    const stored = await storeAndCommit(svc, row, body);
    svc.recentCommits.add(hash, row.object_id);
    return stored;
  } catch (err) {
    if (!(err instanceof ApiError && err.errorName === 'fileGone')) await releaseUpload(svc.app.db, row.object_id);
    throw err;
  }
}
