/**
 * `larder restore <file.tar.gz>`: loads a backup (write-backup.ts) into an EMPTY schema of either
 * engine, in one transaction (all or nothing): tables and sequences first, then the rows, then
 * sequence positions, constraints and indexes; file bytes go to the local files folder. The
 * migrations of this Larder run afterwards, so a backup from an older version is brought up to
 * date (see docs/backup.md for what a rollback means). A backup is trusted input, like a
 * pg_dump file: its schema statements are run as they are.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { sql, staticText } from '../sql/fragment.ts';
import type { Database, Queryable } from '../storage/database.ts';
import { migrate } from '../storage/migrations.ts';
import { exportEntries } from '../migration/export-source.ts';
import { readLines } from '../migration/read-lines.ts';
import { BACKUP_FORMAT_VERSION, type BackupManifest } from './write-backup.ts';
import { createStatements, finishStatements, type SchemaSnapshot, type TableShape } from './schema-snapshot.ts';
import { loadRows, ROW_BATCH } from './table-rows.ts';

/** What a restore wrote. */
export interface RestoreResult {
  manifest: BackupManifest;
  tables: Record<string, number>;
  files: number;
}

/** Throws unless the current schema has no tables or sequences (restore never merges). */
export async function requireEmptySchema(q: Queryable): Promise<void> {
  const [{ n }] = await q.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
    WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'S', 'v', 'm', 'p')`);
  if (n > 0) {
    throw new Error(`the target schema already holds ${n} tables or sequences: restore and move need an empty one (a new database, or another LARDER_DB_SCHEMA)`);
  }
}

/** Runs the snapshot's statements (text from the database's own catalogue, see schema-snapshot.ts). */
export async function runStatements(tx: Queryable, statements: readonly string[]): Promise<void> {
  for (const s of statements) await tx.query(staticText(s));
}

/** Throws unless the local files folder is missing or empty (restored files never overwrite). */
async function requireEmptyFolder(dir: string | undefined): Promise<void> {
  if (!dir) return;
  const names = await readdir(dir).catch(() => []);
  if (names.length) throw new Error(`the files folder ${dir} is not empty: restore needs an empty one`);
}

/** Loads one table's JSON lines in batches. */
async function loadTable(tx: Queryable, table: TableShape, stream: AsyncIterable<Buffer>): Promise<number> {
  let batch: string[] = [];
  let n = 0;
  for await (const line of readLines(stream)) {
    if (line.tooLong) throw new Error(`tables/${table.name}.jsonl line ${line.n} is too long`);
    if (!line.text) continue;
    batch.push(line.text);
    n++;
    if (batch.length >= ROW_BATCH) {
      await loadRows(tx, table, batch);
      batch = [];
    }
  }
  await loadRows(tx, table, batch);
  return n;
}

/** Restores the archive at `path` into `db` (empty schema) and `filesDir` (local backend). */
export async function restoreBackup(db: Database, path: string, filesDir: string | undefined): Promise<RestoreResult> {
  const result: RestoreResult = { manifest: undefined as unknown as BackupManifest, tables: {}, files: 0 };
  await requireEmptyFolder(filesDir);
  await db.transaction(async (tx) => {
    await requireEmptySchema(tx);
    let snapshot: SchemaSnapshot | undefined;
    for await (const entry of exportEntries(path, 'archive', { read: 0, total: 0 })) {
      const stream = entry.stream() as AsyncIterable<Buffer>;
      if (entry.name === 'larder-backup.json') {
        const m = JSON.parse(await text(stream)) as BackupManifest;
        if (m.format !== 'larder-backup' || m.version !== BACKUP_FORMAT_VERSION) throw new Error(`${path} is not a Larder backup of format ${BACKUP_FORMAT_VERSION}`);
        result.manifest = m;
      } else if (entry.name === 'schema.json') {
        snapshot = JSON.parse(await text(stream)) as SchemaSnapshot;
        await runStatements(tx, createStatements(snapshot));
      } else if (entry.name.startsWith('tables/') && entry.name.endsWith('.jsonl')) {
        const name = entry.name.slice(7, -6);
        const table = snapshot?.tables.find((t) => t.name === name);
        if (!table) throw new Error(`${entry.name} has no table in schema.json`);
        result.tables[name] = await loadTable(tx, table, stream);
      } else if (entry.name.startsWith('files/')) {
        if (!filesDir) throw new Error('the backup holds files but no local files folder is configured (LARDER_FILES_DIR)');
        const rel = normalize(entry.name.slice(6));
        if (rel.startsWith('..') || rel.startsWith('/')) throw new Error(`unsafe file name in the backup: ${entry.name}`);
        const target = join(filesDir, rel);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, await bytes(stream), { flag: 'wx' });
        result.files++;
      }
    }
    if (!result.manifest || !snapshot) throw new Error(`${path} is not a Larder backup (no larder-backup.json or schema.json)`);
    for (const [name, count] of Object.entries(result.manifest.tables)) {
      if ((result.tables[name] ?? 0) !== count) throw new Error(`table ${name}: the backup lists ${count} rows, the archive holds ${result.tables[name] ?? 0}`);
    }
    await runStatements(tx, finishStatements(snapshot));
  });
  await migrate(db);
  return result;
}

async function bytes(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

async function text(stream: AsyncIterable<Buffer>): Promise<string> {
  return (await bytes(stream)).toString('utf8');
}
