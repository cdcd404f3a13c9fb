import { rm } from 'node:fs/promises';
import { sql } from '../../module-api/data.ts';
import { claimForCleanup, forget, markAbandoned, markDeleted, type FileRecord, type FileState } from './file-records.ts';
import type { FilesService } from './files-service.ts';
import { thumbnailDir } from './thumbnail.ts';

/** Removes the bytes of rows already marked `deleting`, their `_File` records, then the rows. */
async function finish(svc: FilesService, rows: readonly FileRecord[]): Promise<void> {
  if (!rows.length) return;
  const ids = rows.map((r) => r.object_id);
  svc.recentCommits.forgetObjects(ids);
  svc.issuedTokens.forgetObjects(ids);
  // Records of abandoned uploads go too; for deleted files there is nothing left to delete.
  await svc.app.db.query(sql`DELETE FROM "_File" WHERE "objectId" = ANY(${ids}::text[])`);
  for (const r of rows) {
    await svc.store.remove(r.blob);
    await rm(thumbnailDir(svc, r.object_id), { recursive: true, force: true });
  }
  await forget(svc.app.db, ids);
}

/**
 * Removes one file whatever its record's ACL (an upload abandoned by fileCallback {result:false},
 * a failed direct upload), if it is still in one of `from`. False when it was not.
 */
export async function removeFile(svc: FilesService, objectId: string, from: readonly FileState[]): Promise<boolean> {
  const row = await markAbandoned(svc.app.db, objectId, from);
  if (!row) return false;
  await finish(svc, [row]);
  return true;
}

/** After `_File` records were deleted (file.destroy()): removes their bytes. */
export async function removeBytesOfDeleted(svc: FilesService, objectIds: readonly string[]): Promise<void> {
  // Before the rows change: a fileCallback of these files reads the row (its token is gone).
  svc.recentCommits.forgetObjects(objectIds);
  svc.issuedTokens.forgetObjects(objectIds);
  await finish(svc, await markDeleted(svc.app.db, objectIds));
}

/** Grace periods of the cleanup job. */
export const CLEANUP_GRACE = { pendingGraceSeconds: 300, uploadingGraceSeconds: 24 * 3600, limit: 200 } as const;

/**
 * One pass of the cleanup job: claims expired uploads, files whose record was deleted by another
 * path, and removals a crash interrupted, and removes them. Returns how many it removed.
 */
export async function cleanupOnce(svc: FilesService, grace: { pendingGraceSeconds: number; uploadingGraceSeconds: number; limit: number } = CLEANUP_GRACE): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await claimForCleanup(svc.app.db, grace);
    await finish(svc, rows);
    total += rows.length;
    if (rows.length < grace.limit) return total;
  }
}
