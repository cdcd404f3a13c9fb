/**
 * Archives of finished versions (`GET /1.1/leaderboard/leaderboards/<name>/archives`, master
 * key) and their CSV files. Each archive's `url` carries an unguessable file key, like the CDN
 * links LeanCloud gave; the CSV is written from the kept entries when downloaded.
 */
import type { AppContext } from '../../module-api/context.ts';
import { toIso, sql } from '../../module-api/data.ts';
import { ensureLeaderboardTables } from './leaderboard-tables.ts';
import { readBoard } from './leaderboard-store.ts';

/** The path archives are downloaded from (outside /1.1: a plain link, no headers needed). */
export const ARCHIVE_PATH = '/leaderboard-archives';
/** Rows read per statement while writing a CSV. */
const CSV_PAGE = 5000;

interface ArchiveRow {
  object_id: string;
  name: string;
  version: number;
  file_key: string;
  activated_at: unknown;
  deactivated_at: unknown;
  created_at: unknown;
}

const date = (v: unknown) => ({ __type: 'Date', iso: toIso(v) });

/** The archives of a leaderboard, newest first. */
export async function listArchives(app: AppContext, baseUrl: string, name: string, skip: number, limit: number): Promise<Record<string, unknown>[]> {
  await readBoard(app, name);
  const rows = await app.db.query<ArchiveRow>(sql`SELECT * FROM _larder_leaderboard_archives WHERE name = ${name}
    ORDER BY version DESC LIMIT ${limit} OFFSET ${skip}`);
  return rows.map((r) => ({
    objectId: r.object_id,
    statisticName: r.name,
    version: r.version,
    status: 'completed',
    url: `${baseUrl}${ARCHIVE_PATH}/${r.file_key}`,
    file_key: r.file_key,
    activatedAt: date(r.activated_at),
    deactivatedAt: date(r.deactivated_at),
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.created_at),
  }));
}

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * The CSV of an archive, in rank order (`rank,objectId,statisticValue,updatedAt`; objectId is
 * the user's), produced page by page; undefined when no archive has this file key.
 */
export async function* archiveCsv(app: AppContext, fileKey: string): AsyncGenerator<string> {
  await ensureLeaderboardTables(app.db);
  const rows = await app.db.query<ArchiveRow>(sql`SELECT * FROM _larder_leaderboard_archives WHERE file_key = ${fileKey}`);
  const a = rows[0];
  if (!a) return;
  yield 'rank,objectId,statisticValue,updatedAt\n';
  let rank = 0;
  let after: { sort_key: number; reached_at: string; user_id: string } | undefined;
  for (;;) {
    const cursor = after ? sql`AND (sort_key, reached_at, user_id) > (${after.sort_key}::float8, ${after.reached_at}::timestamptz, ${after.user_id})` : sql``;
    const page = await app.db.query<{ user_id: string; value: number; sort_key: number; reached_at: unknown }>(sql`SELECT user_id, value, sort_key, reached_at
      FROM _larder_leaderboard_entries WHERE name = ${a.name} AND version = ${a.version} ${cursor}
      ORDER BY sort_key, reached_at, user_id LIMIT ${CSV_PAGE}`);
    if (!page.length) return;
    yield page.map((r) => `${rank++},${csvField(r.user_id)},${Number(r.value)},${toIso(r.reached_at)}\n`).join('');
    const last = page[page.length - 1];
    after = { sort_key: last.sort_key, reached_at: toIso(last.reached_at), user_id: last.user_id };
  }
}

/** True when an archive has this file key. */
export async function archiveExists(app: AppContext, fileKey: string): Promise<boolean> {
  await ensureLeaderboardTables(app.db);
  const rows = await app.db.query(sql`SELECT 1 FROM _larder_leaderboard_archives WHERE file_key = ${fileKey}`);
  return rows.length > 0;
}
