/**
 * `larder files pull`: copies the bytes of every `_File` record whose url still points elsewhere
 * (LeanCloud's file domain, after `larder import` or `larder sync`) into Larder's storage and
 * rewrites the record's `url` and `key`. Per file: a `_larder_file_pulls` row says running / done
 * / failed, so a crash is resumed (partial bytes of a running file are removed first) and a
 * second run moves nothing that was moved. Size and md5 are checked when the record knows them.
 */
import { ApiError } from '../../../module-api/errors.ts';
import { guessMimeType, sql, type Database } from '../../../module-api/data.ts';
import type { BlobStore } from '../blob-store.ts';
import { ensureFileTables, keyTaken } from '../file-records.ts';
import { isValidKey, newKey, randomId } from '../file-key.ts';
import { candidatePage, candidateTotals, storedCount, type PullCandidate } from './pull-candidates.ts';
import { withDownload, type DownloadOptions } from './download.ts';

/** What a pull needs. */
export interface PullOptions extends DownloadOptions {
  db: Database;
  store: BlobStore;
  /** Base of the new urls (LARDER_FILES_PUBLIC_URL, else LARDER_PUBLIC_URL + /files). */
  filesBaseUrl: string;
  maxBytes: number;
  concurrency: number;
  dryRun: boolean;
  /** Called after each file (and once at the start with done = 0). */
  progress?: (p: PullProgress) => void;
  /** Called for each file a dry run would move. */
  listed?: (c: PullCandidate) => void;
}

/** Where a pull is. */
export interface PullProgress {
  total: number;
  totalBytes: number;
  done: number;
  bytes: number;
  failed: number;
}

/** What a pull did. */
export interface PullSummary {
  moved: number;
  bytes: number;
  /** Files that were already in Larder's storage before this run. */
  alreadyStored: number;
  failures: { objectId: string; name: string; reason: string }[];
  /** Dry run: what would move. */
  wouldMove: number;
  wouldMoveBytes: number;
}

const PAGE = 200;

function declaredSize(c: PullCandidate): number | undefined {
  const s = c.meta?.size;
  return typeof s === 'number' && Number.isInteger(s) && s > 0 ? s : undefined;
}

function declaredMd5(c: PullCandidate): string | undefined {
  const s = c.meta?._checksum;
  return typeof s === 'string' && /^[0-9a-f]{32}$/i.test(s) ? s.toLowerCase() : undefined;
}

async function chooseKey(db: Database, c: PullCandidate): Promise<string> {
  // The original key keeps old links' paths recognisable; a key Larder would not accept (or one
  // already taken) gets a fresh one.
  if (c.key && isValidKey(c.key) && !(await keyTaken(db, c.key))) return c.key;
  return newKey({ name: c.name ?? 'file' });
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Moves one file; throws with a reason on failure (after cleaning up its partial bytes). */
async function pullOne(o: PullOptions, c: PullCandidate): Promise<number> {
  const { db, store } = o;
  if (c.blob) await store.remove(c.blob); // a crashed earlier attempt
  const key = await chooseKey(db, c);
  const blob = store.kind === 'local' ? randomId(32) : key;
  await db.query(sql`INSERT INTO _larder_file_pulls (object_id, status, attempts, blob, source_url, updated_at)
    VALUES (${c.object_id}, 'running', 1, ${blob}, ${c.url}, now())
    ON CONFLICT (object_id) DO UPDATE SET status = 'running', attempts = _larder_file_pulls.attempts + 1, blob = ${blob}, reason = NULL, updated_at = now()`);
  const name = c.name ?? key;
  const mimeType = c.mime_type || guessMimeType(name);
  const stored = await withDownload(c.url, o, async (d) => {
    try {
      const s = await store.write(blob, d.body, { maxBytes: o.maxBytes, contentType: mimeType });
      const size = declaredSize(c);
      if (size !== undefined && size !== s.size) throw new Error(`size ${s.size} differs from the record's ${size}`);
      const md5 = declaredMd5(c);
      if (md5 !== undefined && md5 !== s.md5) throw new Error(`md5 ${s.md5} differs from the record's _checksum ${md5}`);
      return s;
    } catch (err) {
      d.body.destroy();
      await store.remove(blob);
      throw err;
    }
  });
  const url = `${o.filesBaseUrl}/${key}`;
  const committed = await db.transaction(async (tx) => {
    const meta = JSON.stringify({ size: stored.size, _checksum: stored.md5 });
    const updated = await tx.query(sql`UPDATE "_File" SET data = jsonb_set(jsonb_set(jsonb_set(data, '{url}', ${JSON.stringify(url)}::jsonb), '{key}', ${JSON.stringify(key)}::jsonb),
        '{metaData}', COALESCE(data->'metaData', '{}'::jsonb) || ${meta}::jsonb), "updatedAt" = now()
      WHERE "objectId" = ${c.object_id} RETURNING "objectId"`);
    if (!updated.length) return false;
    await tx.query(sql`INSERT INTO _larder_files (object_id, key, blob, state, token_hash, mime_type, name, size, md5, expires_at)
      VALUES (${c.object_id}, ${key}, ${blob}, 'committed', NULL, ${mimeType}, ${name}, ${stored.size}, ${stored.md5}, now())`);
    await tx.query(sql`UPDATE _larder_file_pulls SET status = 'done', updated_at = now() WHERE object_id = ${c.object_id}`);
    return true;
  }).catch(async (err: unknown) => {
    await store.remove(blob);
    throw err instanceof ApiError && err.errorName === 'duplicateValue' ? new Error(`the key ${key} was taken meanwhile; run the pull again`) : err;
  });
  if (!committed) {
    await store.remove(blob);
    throw new Error('the record was deleted while its bytes were copied');
  }
  return stored.size;
}

/** Runs a pull (or a dry run) and returns its summary. */
export async function pullFiles(o: PullOptions): Promise<PullSummary> {
  await ensureFileTables(o.db);
  const totals = await candidateTotals(o.db);
  const summary: PullSummary = { moved: 0, bytes: 0, alreadyStored: await storedCount(o.db), failures: [], wouldMove: 0, wouldMoveBytes: 0 };
  const progress: PullProgress = { total: totals.files, totalBytes: totals.bytes, done: 0, bytes: 0, failed: 0 };
  o.progress?.({ ...progress });
  let after = '';
  for (;;) {
    const page = await candidatePage(o.db, after, PAGE);
    if (!page.length) break;
    after = page[page.length - 1].object_id;
    if (o.dryRun) {
      for (const c of page) {
        summary.wouldMove++;
        summary.wouldMoveBytes += declaredSize(c) ?? 0;
        o.listed?.(c);
      }
      continue;
    }
    let next = 0;
    const worker = async () => {
      while (next < page.length) {
        const c = page[next++];
        try {
          const size = await pullOne(o, c);
          summary.moved++;
          summary.bytes += size;
          progress.bytes += size;
        } catch (err) {
          const reason = reasonOf(err).slice(0, 500);
          summary.failures.push({ objectId: c.object_id, name: c.name ?? '', reason });
          progress.failed++;
          await o.db.query(sql`UPDATE _larder_file_pulls SET status = 'failed', reason = ${reason}, blob = NULL, updated_at = now() WHERE object_id = ${c.object_id}`);
        }
        progress.done++;
        o.progress?.({ ...progress });
      }
    };
    await Promise.all(Array.from({ length: Math.min(o.concurrency, page.length) }, worker));
  }
  return summary;
}
