/**
 * `larder backup <file.tar.gz>`: one consistent copy of an app, on either engine. Everything is
 * read in one REPEATABLE READ transaction (a snapshot: writes that land meanwhile are either
 * wholly in or wholly out), spooled to a temporary folder, then packed:
 *
 *   larder-backup.json        what the archive holds (format, version, counts)
 *   schema.json               the schema snapshot (schema-snapshot.ts)
 *   tables/<table>.jsonl      one row per line, every table of the app's schema: objects, users,
 *                             roles, keys, settings, file records, module tables, migrations
 *   files/<key>               the bytes of uploaded files (local files backend only)
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { packArchive, type PackEntry } from '../export/pack-archive.ts';
import { sql } from '../sql/fragment.ts';
import type { Database } from '../storage/database.ts';
import { readSnapshot } from './schema-snapshot.ts';
import { readRows } from './table-rows.ts';

/** The archive's description (larder-backup.json). */
export interface BackupManifest {
  format: 'larder-backup';
  version: 1;
  createdAt: string;
  engine: 'pglite' | 'postgres';
  schema: string;
  tables: Record<string, number>;
  files: number;
}

/** Format version this Larder writes and reads. */
export const BACKUP_FORMAT_VERSION = 1;

/** What `writeBackup` needs. */
export interface BackupSource {
  db: Database;
  /** Folder of the local files backend; undefined when files live in S3 (not copied). */
  filesDir?: string;
}

async function spoolFiles(dir: string | undefined): Promise<PackEntry[]> {
  if (!dir) return [];
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const out: PackEntry[] = [];
  for (const name of names.map(String).sort()) {
    // In-flight uploads and the thumbnail cache are not data.
    if (/^(tmp|thumbnails)([\\/]|$)/.test(name)) continue;
    const full = join(dir, name);
    if ((await stat(full)).isFile()) out.push({ name: `files/${name.split('\\').join('/')}`, path: full });
  }
  return out;
}

/** Writes the backup archive to `outPath`; returns its manifest. */
export async function writeBackup(src: BackupSource, outPath: string): Promise<BackupManifest> {
  const spool = await mkdtemp(join(tmpdir(), 'larder-backup-'));
  try {
    const manifest: BackupManifest = {
      format: 'larder-backup', version: BACKUP_FORMAT_VERSION, createdAt: new Date().toISOString(),
      engine: src.db.engine, schema: src.db.schema, tables: {}, files: 0,
    };
    const entries: PackEntry[] = [];
    await src.db.transaction(async (tx) => {
      await tx.query(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      const snapshot = await readSnapshot(tx);
      await writeFile(join(spool, 'schema.json'), JSON.stringify(snapshot));
      entries.push({ name: 'schema.json', path: join(spool, 'schema.json') });
      for (const [i, t] of snapshot.tables.entries()) {
        const path = join(spool, `t${i}.jsonl`);
        const out = createWriteStream(path);
        manifest.tables[t.name] = await readRows(tx, t.name, async (rows) => {
          if (!out.write(`${rows.join('\n')}\n`)) await once(out, 'drain');
        });
        out.end();
        await once(out, 'close');
        entries.push({ name: `tables/${t.name}.jsonl`, path });
      }
    });
    const files = await spoolFiles(src.filesDir);
    manifest.files = files.length;
    await writeFile(join(spool, 'larder-backup.json'), JSON.stringify(manifest, null, 2));
    await packArchive([{ name: 'larder-backup.json', path: join(spool, 'larder-backup.json') }, ...entries, ...files], outPath, new Date());
    return manifest;
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
}
