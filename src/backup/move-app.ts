/**
 * `larder move --to <postgres url>`: copies an app from one database to another (the embedded
 * engine to PostgreSQL, in practice) with its app id, keys, settings, users, roles, objects, file
 * records, indexes and module tables: every table of the app's schema, read in one snapshot and
 * written in one transaction, so the target holds all of it or nothing. The target schema must be
 * empty. File bytes of the local backend stay in the files folder, which the server on PostgreSQL
 * keeps using (same LARDER_DATA_DIR or LARDER_FILES_DIR).
 */
import { sql } from '../sql/fragment.ts';
import type { Database } from '../storage/database.ts';
import { migrate } from '../storage/migrations.ts';
import { requireEmptySchema, runStatements } from './read-backup.ts';
import { createStatements, finishStatements, readSnapshot } from './schema-snapshot.ts';
import { loadRows, readRows } from './table-rows.ts';

/** Rows copied per table. */
export type MoveResult = Record<string, number>;

/** Copies every table of `from`'s schema into `to`'s (empty) schema. */
export async function moveApp(from: Database, to: Database): Promise<MoveResult> {
  const copied: MoveResult = {};
  await to.transaction(async (target) => {
    await requireEmptySchema(target);
    await from.transaction(async (source) => {
      await source.query(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      const snapshot = await readSnapshot(source);
      await runStatements(target, createStatements(snapshot));
      for (const t of snapshot.tables) {
        copied[t.name] = await readRows(source, t.name, (rows) => loadRows(target, t, rows));
      }
      await runStatements(target, finishStatements(snapshot));
    });
  });
  await migrate(to);
  return copied;
}
