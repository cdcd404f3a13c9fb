/**
 * Reading and loading the rows of one table as JSON, the same way on both engines: rows leave
 * as `to_jsonb(row)` text (timestamps as ISO text, arrays as JSON arrays, bytea as `\x` hex) and
 * come back through `jsonb_populate_recordset`, which applies each column's own input function,
 * so types survive the trip. Names reach SQL only through ident(); rows only as parameters.
 */
import { ident, join, sql, staticText } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import type { TableShape } from './schema-snapshot.ts';

/** Rows per FETCH and per INSERT. */
export const ROW_BATCH = 500;

/**
 * Calls `onBatch` with the rows of `table` as JSON text, in batches, through a cursor (so a big
 * table is never held in memory). Must run inside a transaction: the cursor lives in it.
 */
export async function readRows(tx: Queryable, table: string, onBatch: (rows: string[]) => Promise<void>): Promise<number> {
  const cursor = ident('larder_backup_rows');
  await tx.query(sql`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT to_jsonb(t)::text AS r FROM ${ident(table)} t`);
  let total = 0;
  for (;;) {
    const rows = await tx.query<{ r: string }>(sql`FETCH ${staticText(String(ROW_BATCH))} FROM ${cursor}`);
    if (!rows.length) break;
    total += rows.length;
    await onBatch(rows.map((x) => x.r));
    if (rows.length < ROW_BATCH) break;
  }
  await tx.query(sql`CLOSE ${cursor}`);
  return total;
}

/** Inserts rows (JSON text of whole rows) into `table`; generated columns are left to the database. */
export async function loadRows(tx: Queryable, table: TableShape, rows: readonly string[]): Promise<void> {
  if (!rows.length) return;
  const cols = join(table.columns.filter((c) => !c.generatedExpr).map((c) => ident(c.name)), ', ');
  const t = ident(table.name);
  await tx.query(sql`INSERT INTO ${t} (${cols}) SELECT ${cols} FROM jsonb_populate_recordset(NULL::${t}, ${`[${rows.join(',')}]`}::jsonb)`);
}
