/**
 * The checkpoint of a running export, stored in the job row after every page: for each spool
 * file (one per archive entry), how many bytes and rows are written and the keyset cursor of the
 * last row. A resumed job keeps complete files, cuts a partial file back to its checkpoint and
 * reads on from the cursor, so a restart neither repeats nor loses a row.
 */
import { isPlainObject } from '../model/plain-object.ts';

/** Where one spool file stands. */
export interface FileProgress {
  bytes: number;
  rows: number;
  /** Last key written (objectId, or "ownerId\ttargetId" for relation files); absent before the first page. */
  cursor?: string;
  complete: boolean;
}

/** The whole checkpoint, keyed by archive entry name. */
export interface ExportProgress {
  files: Record<string, FileProgress>;
}

/** Reads a stored checkpoint; anything unexpected counts as "nothing done yet". */
export function parseProgress(value: unknown): ExportProgress {
  const files: Record<string, FileProgress> = {};
  const raw = isPlainObject(value) && isPlainObject(value.files) ? value.files : {};
  for (const [name, f] of Object.entries(raw)) {
    if (!isPlainObject(f) || typeof f.bytes !== 'number' || typeof f.rows !== 'number') continue;
    files[name] = {
      bytes: f.bytes,
      rows: f.rows,
      complete: f.complete === true,
      ...(typeof f.cursor === 'string' ? { cursor: f.cursor } : {}),
    };
  }
  return { files };
}
