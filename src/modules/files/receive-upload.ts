import type { Readable } from 'node:stream';
import { ApiError } from '../../module-api/errors.ts';
import { claimUpload, commitUpload, releaseUpload, type FileRecord, type FileState } from './file-records.ts';
import { tokenHash } from './file-key.ts';
import type { FilesService } from './files-service.ts';
import type { StoredBlob } from './blob-store.ts';
import { filesError } from './files-errors.ts';

/**
 * Uploads of at most this many bytes (declared) may go without a claim when their token was
 * issued by this process (below): they end long before the cleanup job would take their row,
 * which it does to pending rows only `pendingGraceSeconds` (5 minutes) after their token expired.
 */
export const UNCLAIMED_MAX_BYTES = 16 * 1024 * 1024;
/** ...and when their token stays valid this much longer at least, ms. */
export const UNCLAIMED_MARGIN_MS = 60_000;

/** How a token upload commits: from which states, and whether its token must have been valid at `validAt`. */
interface CommitRule {
  from: readonly FileState[];
  validAt?: Date;
}

/** What storeAndCommit stores and how it commits it. */
export interface StoreAndCommitOptions {
  /** The file's row: where its bytes go and what is committed. */
  row: FileRecord;
  /** The bytes. */
  body: Readable;
  /** From which states the row commits (default: `uploading`, no token check). */
  rule?: CommitRule;
  /**
   * The bytes go to the row's blob location only if nothing is there: of two PUTs of one token,
   * the first to place its bytes is the one that can commit (receiveTokenUpload).
   */
  exclusive?: boolean;
  /** Content-Length of the request, when it declared one (NaN or undefined otherwise). */
  declaredBytes?: number;
}

/**
 * Stores the bytes of an upload and commits them: size and `_checksum` in the record are what
 * was written. When the file was deleted while its bytes arrived, the bytes are removed and the
 * upload answers fileGone; when its row could not be committed (another PUT of the token won,
 * or the token had expired: `rule`), uploadTokenInvalid.
 */
export async function storeAndCommit(svc: FilesService, { row, body, rule = { from: ['uploading'] }, exclusive = false, declaredBytes }: StoreAndCommitOptions): Promise<StoredBlob> {
  const stored = await svc.store.write(row.blob, body, { maxBytes: svc.opts.maxBytes, contentType: row.mime_type, exclusive, declaredBytes }).catch((err: NodeJS.ErrnoException) => {
    // Another PUT of the token placed its bytes first (it commits them, or gives them up).
    throw exclusive && err.code === 'EEXIST' ? filesError('uploadTokenInvalid') : err;
  });
  const result = await commitUpload(svc.app.db, row.object_id, stored, rule.from, rule.validAt);
  if (result !== 'committed') {
    await svc.store.remove(row.blob);
    throw filesError(result === 'refused' && exclusive ? 'uploadTokenInvalid' : 'fileGone');
  }
  return stored;
}

/**
 * PUT <upload_url> on local storage: the token (from the URL path) authorises exactly one
 * upload of its file until it expires. A concurrent second PUT of the token, a used or expired
 * token and an unknown one all get the same 403. A failed upload (too large, connection lost)
 * gives the token back, so the client may try again while it is valid.
 *
 * Two ways, one guarantee. Usually the PUT claims the token first (pending -> uploading, one
 * statement), so a bad token is refused before a byte is read. A PUT of at most
 * UNCLAIMED_MAX_BYTES whose token this process issued and knows to be pending and valid
 * (issued-tokens.ts) skips the claim: its commit then requires the row still pending (or
 * claimed by another process's PUT that lost) and the token valid when this PUT began. Either
 * way the bytes go to the row's blob location only if nothing is there (`exclusive`): of two
 * PUTs of one token on two processes, the first to place its bytes is the one that can commit,
 * and the other never overwrites or removes them.
 */
export async function receiveTokenUpload(svc: FilesService, token: string, body: Readable, declaredBytes = Number.NaN): Promise<StoredBlob> {
  const hash = token.length <= 200 ? tokenHash(token) : undefined;
  if (!hash) throw filesError('uploadTokenInvalid');
  const started = new Date();
  const taken = declaredBytes <= UNCLAIMED_MAX_BYTES ? svc.issuedTokens.take(hash, UNCLAIMED_MARGIN_MS) : undefined;
  if (taken === 'busy') throw filesError('uploadTokenInvalid');
  if (taken) {
    try {
      const stored = await storeAndCommit(svc, { row: taken.row, body, rule: { from: ['pending', 'uploading'], validAt: started }, exclusive: true, declaredBytes });
      svc.issuedTokens.drop(hash);
      svc.recentCommits.add(hash, taken.row.object_id);
      return stored;
    } catch (err) {
      // Refused or gone: the claim decides for any later PUT. Else the token may be tried again.
      if (err instanceof ApiError && (err.errorName === 'fileGone' || err.errorName === 'uploadTokenInvalid')) svc.issuedTokens.drop(hash);
      else svc.issuedTokens.giveBack(hash);
      throw err;
    }
  }
  const row = await claimUpload(svc.app.db, hash);
  if (!row) throw filesError('uploadTokenInvalid');
  try {
    const stored = await storeAndCommit(svc, { row, body, rule: { from: ['uploading'] }, exclusive: true, declaredBytes });
    svc.issuedTokens.drop(hash);
    svc.recentCommits.add(hash, row.object_id);
    return stored;
  } catch (err) {
    if (!(err instanceof ApiError && err.errorName === 'fileGone')) await releaseUpload(svc.app.db, row.object_id);
    throw err;
  }
}
