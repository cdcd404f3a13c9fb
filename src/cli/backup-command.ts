/**
 * `larder backup <file>`, `larder restore <file>` and `larder move --to <postgres url>`
 * (docs/backup.md). They open the configured database without migrating it (a backup is taken
 * of the data as it is; restore and move need an empty target), and on the embedded engine they
 * take the data-dir lock, so the server must be stopped first.
 */
import { resolve } from 'node:path';
import { isSchemaName, loadConfig, SETTINGS, type Config } from '../config.ts';
import { moveApp } from '../backup/move-app.ts';
import { restoreBackup } from '../backup/read-backup.ts';
import { writeBackup } from '../backup/write-backup.ts';
import type { Database } from '../storage/database.ts';
import { openDatabase } from '../storage/open-database.ts';
import { parseArgs } from './args.ts';
import { CommandError } from './command-error.ts';
import { openConfiguredDatabase } from './serve.ts';
import { toolConfig } from './command-database.ts';

export const BACKUP_USAGE = `Usage:
  larder backup <file.tar.gz>       write the app (every table of its schema, and the files of
                                    the local files backend) to one archive
  larder restore <file.tar.gz>      load such an archive into an EMPTY database (or schema)
  larder move --to <postgres url> [--to-schema <name>]
                                    copy the app from the configured (embedded) database to
                                    an empty PostgreSQL schema (default: the same schema name as
                                    LARDER_DB_SCHEMA, 'larder'): app id, keys, settings, users,
                                    data, file records, indexes (file bytes stay in place)
Options: the database options of 'larder --help' (--database-url, --data-dir, --db-schema,
--files-dir, --config). On the embedded engine stop the server first (one process per data dir).
See docs/backup.md.
`;

const CONFIG_FLAGS: ReadonlySet<string> = new Set([...SETTINGS.map((s) => s.flag), '--config']);

/** Where local file bytes live, or undefined with the S3 backend (back the bucket up yourself). */
function localFilesDir(config: Config): string | undefined {
  if (config.filesBackend !== 'local') return undefined;
  return resolve(config.filesDir ?? resolve(config.dataDir, 'files'));
}

/** A database URL with its password hidden, for messages. */
export function withoutPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  const { db, lock } = await openConfiguredDatabase(config);
  try {
    return await work(db);
  } finally {
    await db.close();
    lock?.release();
  }
}

/** Runs one of the three commands; returns the exit status. */
export async function backupCommand(command: 'backup' | 'restore' | 'move', argv: readonly string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs([...argv]);
  } catch (err) {
    throw new CommandError((err as Error).message);
  }
  if (parsed.help) {
    print(BACKUP_USAGE);
    return 0;
  }
  const { '--to': to, '--to-schema': toSchema, ...configFlags } = parsed.flags;
  const unknown = Object.keys(configFlags).find((f) => !CONFIG_FLAGS.has(f));
  if (unknown) throw new CommandError(`unknown option ${unknown}.\n${BACKUP_USAGE}`);
  const config = loadConfig(env, configFlags);
  // Long copies: no statement timeout, and no embedded slice (command-database.ts, toolConfig).
  const cfg: Config = { ...toolConfig(config), statementTimeoutMs: 0 };
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  if (command === 'move') {
    if (parsed.words.length || !to || toSchema === '') throw new CommandError(`'move' takes --to <postgres url> and nothing else.\n${BACKUP_USAGE}`);
    if (!/^postgres(ql)?:\/\//.test(to)) throw new CommandError('--to must be a postgres:// URL');
    if (config.databaseUrl && config.databaseUrl === to) throw new CommandError('--to names the database the app is already in');
    const schema = toSchema ?? config.dbSchema;
    if (!isSchemaName(schema)) throw new CommandError('--to-schema must be a plain identifier');
    const target = await openDatabase({ databaseUrl: to, schema, poolSize: 2, statementTimeoutMs: 0 });
    try {
      const copied = await withDatabase(cfg, (db) => moveApp(db, target));
      const rows = Object.values(copied).reduce((a, b) => a + b, 0);
      print(`Moved ${Object.keys(copied).length} tables (${rows} rows, ${copied._User ?? 0} users) to ${withoutPassword(to)} schema ${schema} in ${seconds()} s.`);
      const files = localFilesDir(config);
      print(`Start the server with DATABASE_URL set to that URL${schema !== config.dbSchema ? ` and LARDER_DB_SCHEMA=${schema}` : ''}${files ? ` and the same files folder (${files})` : ''}. The embedded data in ${resolve(config.dataDir)} is left as it was: remove it once the new server works.`);
    } finally {
      await target.close();
    }
    return 0;
  }
  if (parsed.words.length !== 1 || to || toSchema) throw new CommandError(`'${command}' takes one archive path.\n${BACKUP_USAGE}`);
  const file = resolve(parsed.words[0]);
  if (command === 'backup') {
    const m = await withDatabase(cfg, (db) => writeBackup({ db, filesDir: localFilesDir(config) }, file));
    const rows = Object.values(m.tables).reduce((a, b) => a + b, 0);
    print(`Backed up ${Object.keys(m.tables).length} tables (${rows} rows) and ${m.files} files of the ${m.engine} database to ${file} in ${seconds()} s.`);
    if (config.filesBackend !== 'local') print('File bytes are in the S3 bucket and are not in the archive: back the bucket up too.');
    return 0;
  }
  const r = await withDatabase(cfg, (db) => restoreBackup(db, file, localFilesDir(config)).catch((err: unknown) => {
    throw new CommandError(`restore failed, nothing was written: ${err instanceof Error ? err.message : String(err)}`);
  }));
  const rows = Object.values(r.tables).reduce((a, b) => a + b, 0);
  print(`Restored ${Object.keys(r.tables).length} tables (${rows} rows) and ${r.files} files from a backup of ${r.manifest.createdAt} in ${seconds()} s.`);
  return 0;
}
