/**
 * The files module's bookkeeping table `_larder_files`: one row per stored (or being uploaded)
 * file, next to its `_File` record. It holds what must not be in the public record: the hash of
 * the upload token, where the bytes are (`blob`), and the upload state:
 *
 *   pending    token issued, no bytes yet          -> uploading (a PUT claimed the token)
 *   uploading  one upload is writing the bytes     -> committed, or back to pending if it failed
 *   committed  bytes stored and the record final
 *   deleting   bytes are being removed (record deleted, upload abandoned or expired)
 *
 * Every transition is one conditional UPDATE (compare-and-set on `state`), so two processes
 * never both win: two concurrent PUTs of one token, or a delete racing an upload.
 *
 * The statements every upload and download runs (insert, claim, commit, by token, by key) are
 * prepared: fixed shapes on unique keys, so they are parsed and planned once per connection; on
 * the embedded engine that took the commit from about 0.9 to 0.4 ms of CPU and the claim from
 * 0.39 to 0.28 (docs/benchmarks.md, Files).
 */
import { moduleTables, prepared, sql, type Database, type Queryable, type Sql } from '../../module-api/data.ts';

/** Upload states (see above). */
export type FileState = 'pending' | 'uploading' | 'committed' | 'deleting';

/** One row of `_larder_files`. */
export interface FileRecord {
  object_id: string;
  key: string;
  blob: string;
  state: FileState;
  mime_type: string;
  name: string;
  size: string | number | null;
  md5: string | null;
}

const COLUMNS = sql`object_id, key, blob, state, mime_type, name, size, md5`;

const TABLE = [
  sql`CREATE TABLE IF NOT EXISTS _larder_files (
     object_id text PRIMARY KEY,
     key text NOT NULL UNIQUE,
     blob text NOT NULL,
     state text NOT NULL,
     token_hash text UNIQUE,
     mime_type text NOT NULL,
     name text NOT NULL,
     size bigint,
     md5 text,
     expires_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     created_at timestamptz NOT NULL DEFAULT now())`,
  // No index may cover `state`, `updated_at`, `size` or `md5`: the claim and the commit of every
  // upload change them, and with no indexed column changed an UPDATE is HOT (a new row version
  // on the same page, no entry added to any index). The (state, expires_at) index that was here
  // changed that, and served nothing: the cleanup's claim reads every row anyway (its
  // "record gone" arm is an anti-join over the whole table), so it is dropped where it exists.
  sql`DROP INDEX IF EXISTS _larder_files_state`,
  // Resumable per-file state of `larder files pull` (src/modules/files/pull/).
  // status: running (blob may hold partial bytes), done, failed (reason says why).
  sql`CREATE TABLE IF NOT EXISTS _larder_file_pulls (
     object_id text PRIMARY KEY,
     status text NOT NULL,
     attempts int NOT NULL DEFAULT 0,
     reason text,
     blob text,
     source_url text,
     updated_at timestamptz NOT NULL DEFAULT now())`,
];

/** Creates the module's tables once per database handle (advisory lock: processes start together). */
export const ensureFileTables: (db: Database) => Promise<void> = moduleTables('files', TABLE);

/** A new file whose bytes are still to come. */
export interface PendingFile {
  objectId: string;
  key: string;
  blob: string;
  tokenHash: string | null;
  mimeType: string;
  name: string;
  ttlSeconds: number;
}

/**
 * The insert of a pending upload's row, run with the `_File` record's insert as one statement
 * (new-file-record.ts), so that no record is ever untracked.
 */
export function pendingInsert(f: PendingFile, state: 'pending' | 'uploading' = 'pending'): Sql {
  return prepared(sql`INSERT INTO _larder_files (object_id, key, blob, state, token_hash, mime_type, name, expires_at)
    VALUES (${f.objectId}, ${f.key}, ${f.blob}, ${state}, ${f.tokenHash}, ${f.mimeType}, ${f.name}, now() + make_interval(secs => ${f.ttlSeconds}))`);
}

/** True when a key is taken (a client-chosen key must be new). */
export async function keyTaken(db: Queryable, key: string): Promise<boolean> {
  const rows = await db.query(sql`SELECT 1 FROM _larder_files WHERE key = ${key}`);
  return rows.length > 0;
}

/**
 * Claims the one upload a token allows: pending and unexpired -> uploading. Undefined when the
 * token is unknown, expired, used, or being used by another request right now.
 */
export async function claimUpload(db: Queryable, tokenHash: string): Promise<FileRecord | undefined> {
  const rows = await db.query<FileRecord>(prepared(sql`UPDATE _larder_files SET state = 'uploading', updated_at = now()
    WHERE token_hash = ${tokenHash} AND state = 'pending' AND expires_at > now() RETURNING ${COLUMNS}`));
  return rows[0];
}

/** A failed upload gives its token back (it may be retried until it expires). */
export async function releaseUpload(db: Queryable, objectId: string): Promise<void> {
  await db.query(sql`UPDATE _larder_files SET state = 'pending', updated_at = now() WHERE object_id = ${objectId} AND state = 'uploading'`);
}

/** What a commit did: committed, the record was gone, or the row was not in a state (or time) to commit. */
export type CommitResult = 'committed' | 'gone' | 'refused';

/**
 * Commits stored bytes: one of `from` -> committed, with the real size and md5, and writes them
 * into the `_File` record's metaData, atomically. `gone` when the file was deleted meanwhile,
 * `refused` when its row was in none of `from`, or, with `validAt`, its token had expired by
 * then (an upload that took no claim: receive-upload.ts); the caller then removes the bytes.
 *
 * One statement, so one round trip and no transaction: the `_File` row is locked first (a
 * delete running now finishes before, and the row then counts as gone), the bookkeeping row
 * changes only when that record exists, and the record only when the bookkeeping row changed.
 */
export async function commitUpload(db: Queryable, objectId: string, stored: { size: number; md5: string }, from: readonly FileState[], validAt?: Date): Promise<CommitResult> {
  const meta = JSON.stringify({ size: stored.size, _checksum: stored.md5 });
  const at = validAt ? validAt.toISOString() : null;
  // The token hash stays: a late fileCallback of the same token must still find its file.
  const rows = await db.query<{ committed: string | number; present: boolean }>(prepared(sql`WITH record AS (
      SELECT "objectId" FROM "_File" WHERE "objectId" = ${objectId} FOR UPDATE),
    file AS (
      UPDATE _larder_files SET state = 'committed', size = ${stored.size}, md5 = ${stored.md5}, updated_at = now()
      WHERE object_id = ${objectId} AND state = ANY(${[...from]}::text[]) AND EXISTS (SELECT 1 FROM record)
        AND (${at}::timestamptz IS NULL OR expires_at > ${at}::timestamptz)
      RETURNING object_id),
    updated AS (
      UPDATE "_File" SET data = jsonb_set(data, '{metaData}', COALESCE(data->'metaData', '{}'::jsonb) || ${meta}::jsonb), "updatedAt" = now()
      WHERE "objectId" IN (SELECT object_id FROM file) RETURNING "objectId")
    SELECT (SELECT count(*) FROM updated) AS committed, EXISTS (SELECT 1 FROM record) AS present`));
  if (Number(rows[0]?.committed ?? 0) > 0) return 'committed';
  return rows[0]?.present ? 'refused' : 'gone';
}

/** The row of a token (any state), for fileCallback. */
export async function byToken(db: Queryable, tokenHash: string): Promise<(FileRecord & { expired: boolean }) | undefined> {
  const rows = await db.query<FileRecord & { expired: boolean }>(prepared(sql`SELECT ${COLUMNS}, expires_at <= now() AS expired FROM _larder_files WHERE token_hash = ${tokenHash}`));
  return rows[0];
}

/** The committed file with this key, for serving. */
export async function committedByKey(db: Queryable, key: string): Promise<FileRecord | undefined> {
  const rows = await db.query<FileRecord>(prepared(sql`SELECT ${COLUMNS} FROM _larder_files WHERE key = ${key} AND state = 'committed'`));
  return rows[0];
}

/**
 * Marks the files among `objectIds` whose `_File` record no longer exists for deletion and
 * returns them: the caller removes each blob, then calls `forget`. A crash in between leaves
 * `deleting` rows, which the cleanup job finishes.
 */
export async function markDeleted(db: Queryable, objectIds: readonly string[]): Promise<FileRecord[]> {
  if (!objectIds.length) return [];
  return db.query<FileRecord>(sql`UPDATE _larder_files f SET state = 'deleting', token_hash = NULL, updated_at = now()
    WHERE f.object_id = ANY(${[...objectIds]}::text[]) AND f.state <> 'deleting'
      AND NOT EXISTS (SELECT 1 FROM "_File" o WHERE o."objectId" = f.object_id) RETURNING ${COLUMNS}`);
}

/** Marks one file for deletion whatever its record (an abandoned upload); undefined if already going. */
export async function markAbandoned(db: Queryable, objectId: string, from: readonly FileState[]): Promise<FileRecord | undefined> {
  const rows = await db.query<FileRecord>(sql`UPDATE _larder_files SET state = 'deleting', token_hash = NULL, updated_at = now()
    WHERE object_id = ${objectId} AND state = ANY(${[...from]}::text[]) RETURNING ${COLUMNS}`);
  return rows[0];
}

/**
 * The cleanup job's claim, in one statement (safe with several processes: a row changes state
 * once): uploads never finished in time (pending: `pendingGraceSeconds` after the token expired;
 * uploading: `uploadingGraceSeconds` after, a very slow upload may still be running), files whose
 * `_File` record was deleted by any other path (class or batch deletes, imports), and `deleting`
 * rows left by a crash (untouched for `pendingGraceSeconds`).
 */
export async function claimForCleanup(db: Queryable, g: { pendingGraceSeconds: number; uploadingGraceSeconds: number; limit: number }): Promise<FileRecord[]> {
  return db.query<FileRecord>(sql`UPDATE _larder_files SET state = 'deleting', token_hash = NULL, updated_at = now()
    WHERE object_id IN (
      SELECT f.object_id FROM _larder_files f
      WHERE (f.state = 'pending' AND f.expires_at < now() - make_interval(secs => ${g.pendingGraceSeconds}))
         OR (f.state = 'uploading' AND f.expires_at < now() - make_interval(secs => ${g.uploadingGraceSeconds}))
         OR (f.state = 'deleting' AND f.updated_at < now() - make_interval(secs => ${g.pendingGraceSeconds}))
         OR (f.state <> 'deleting' AND f.created_at < now() - interval '1 minute'
             AND NOT EXISTS (SELECT 1 FROM "_File" o WHERE o."objectId" = f.object_id))
      LIMIT ${g.limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${COLUMNS}`);
}

/** Drops the bookkeeping rows of files whose bytes are gone. */
export async function forget(db: Queryable, objectIds: readonly string[]): Promise<void> {
  if (objectIds.length) await db.query(sql`DELETE FROM _larder_files WHERE object_id = ANY(${[...objectIds]}::text[]) AND state = 'deleting'`);
}

/** Parses the bigint `size` column. */
export function sizeOf(r: FileRecord): number {
  return r.size === null ? 0 : Number(r.size);
}
