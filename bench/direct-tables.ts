import type pg from 'pg';
import { createClassTable } from '../src/storage/class-table.ts';
import { BENCH_CLASS, DIRECT_BENCH_TABLE, DIRECT_OWNER_TABLE, OWNER_CLASS } from './bench-data.ts';

/**
 * The indexes a developer would write by hand for the direct side's queries: a numeric
 * expression index for the range query on score and a text one for the category $in.
 */
export const DIRECT_INDEXES: readonly string[] = [
  `CREATE INDEX ${DIRECT_BENCH_TABLE}_score ON ${DIRECT_BENCH_TABLE} (((data->>'score')::numeric))`,
  `CREATE INDEX ${DIRECT_BENCH_TABLE}_category ON ${DIRECT_BENCH_TABLE} ((data->>'category'))`,
];

/**
 * Creates the direct side's tables as copies of Larder's seeded classes: the same class-table
 * DDL (so the same primary key, rperm GIN and timestamp indexes), the same rows and ids, plus
 * hand-written indexes instead of the ones `larder index add` made. Both sides then start from
 * identical data, and each side's writes go to its own table.
 */
export async function createDirectTables(pool: pg.Pool): Promise<void> {
  for (const [copy, source] of [[DIRECT_OWNER_TABLE, OWNER_CLASS], [DIRECT_BENCH_TABLE, BENCH_CLASS]]) {
    for (const stmt of createClassTable(copy)) {
      const q = stmt.toQuery();
      await pool.query(q.text, q.values);
    }
    await pool.query(`INSERT INTO ${copy} SELECT * FROM "${source}"`);
  }
  for (const stmt of DIRECT_INDEXES) await pool.query(stmt);
  // Fresh statistics on every table, so neither side's plans depend on autovacuum's timing.
  await pool.query(`ANALYZE "${BENCH_CLASS}", "${OWNER_CLASS}", ${DIRECT_BENCH_TABLE}, ${DIRECT_OWNER_TABLE}`);
}

/** Index definitions on a table, for the report (what `larder index add` made). */
export async function indexDefinitions(pool: pg.Pool, table: string): Promise<string[]> {
  const { rows } = await pool.query<{ indexdef: string }>(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname`,
    [table],
  );
  return rows.map((r) => r.indexdef);
}
