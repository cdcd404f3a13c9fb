/** The `_File` records `larder files pull` still has to move, page by page, and their pull state. */
import { sql, type Queryable } from '../../../module-api/data.ts';

/** One record whose bytes are elsewhere. */
export interface PullCandidate {
  object_id: string;
  name: string | null;
  url: string;
  key: string | null;
  mime_type: string | null;
  meta: Record<string, unknown> | null;
  /** State of an earlier pull of this file, if any. */
  status: string | null;
  blob: string | null;
}

/**
 * Records with an http(s) url and no stored bytes in Larder (no `_larder_files` row), except
 * external files (`metaData.__source = "external"`: saved by URL, hosted by the app itself).
 */
const WHERE = sql`NOT EXISTS (SELECT 1 FROM _larder_files f WHERE f.object_id = o."objectId")
  AND (o.data->>'url' LIKE 'http://%' OR o.data->>'url' LIKE 'https://%')
  AND COALESCE(o.data->'metaData'->>'__source', '') <> 'external'`;

/** The next page after `after` (keyset on objectId). */
export async function candidatePage(db: Queryable, after: string, limit: number): Promise<PullCandidate[]> {
  return db.query<PullCandidate>(sql`SELECT o."objectId" AS object_id, o.data->>'name' AS name, o.data->>'url' AS url, o.data->>'key' AS key,
      o.data->>'mime_type' AS mime_type, o.data->'metaData' AS meta, p.status, p.blob
    FROM "_File" o LEFT JOIN _larder_file_pulls p ON p.object_id = o."objectId"
    WHERE o."objectId" > ${after} AND ${WHERE}
    ORDER BY o."objectId" LIMIT ${limit}`);
}

/** How many records are to move and their declared bytes (for the progress bar). */
export async function candidateTotals(db: Queryable): Promise<{ files: number; bytes: number }> {
  const [row] = await db.query<{ files: string | number; bytes: string | number | null }>(sql`SELECT count(*) AS files,
      sum(CASE WHEN jsonb_typeof(o.data->'metaData'->'size') = 'number' THEN (o.data->'metaData'->>'size')::numeric ELSE 0 END) AS bytes
    FROM "_File" o WHERE ${WHERE}`);
  return { files: Number(row.files), bytes: Number(row.bytes ?? 0) };
}

/** Records that already have their bytes in Larder (the summary's "already here"). */
export async function storedCount(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(sql`SELECT count(*) AS n FROM _larder_files WHERE state = 'committed'`);
  return Number(row.n);
}
