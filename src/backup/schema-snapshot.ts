/**
 * The shape of an app's schema read from PostgreSQL's own catalogue (the same on PGlite and on
 * PostgreSQL): tables with their columns, constraints and indexes, and sequences with their
 * positions. It is what backup, restore and `larder move` carry, whatever created the tables
 * (migrations, class tables, modules), so a new table needs no change here. The definitions are
 * the server's own text (format_type, pg_get_expr, pg_get_constraintdef, pg_get_indexdef),
 * unqualified because the app's schema is first in the search_path of both engines.
 */
import { ident, sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/** One column as CREATE TABLE needs it. */
export interface ColumnShape {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
  /** Collation when it differs from the type's default (e.g. "C"). */
  collation: string | null;
  /** Stored generated columns are recomputed, never copied. */
  generatedExpr: string | null;
}

/** One table. */
export interface TableShape {
  name: string;
  unlogged: boolean;
  columns: ColumnShape[];
  /** `ALTER TABLE ... ADD CONSTRAINT <name> <definition>`; foreign keys last. */
  constraints: { name: string; definition: string; foreign: boolean }[];
  /** CREATE INDEX statements of indexes that back no constraint. */
  indexes: string[];
}

/** One sequence and where it stands. */
export interface SequenceShape {
  name: string;
  lastValue: string;
  isCalled: boolean;
}

/** The whole schema of an app. */
export interface SchemaSnapshot {
  tables: TableShape[];
  sequences: SequenceShape[];
}

interface TableRow { oid: number; name: string; persistence: string }

/** Relation kinds a Larder schema holds: tables, sequences, indexes, TOAST. Others are refused. */
const KNOWN_KINDS = ['r', 'S', 'i', 't'];

/**
 * Drops the app schema's qualification from a definition: pg_get_indexdef writes `ON
 * <schema>.<table>` whatever the search_path, and a copy must land in the target's schema.
 */
export function unqualified(definition: string, schema: string): string {
  const escaped = schema.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return definition.replace(new RegExp(`(^|[\\s(,])(?:"${escaped}"|${escaped})\\.`, 'g'), '$1');
}

/** Reads the snapshot of the current schema (run it in the transaction that reads the rows). */
export async function readSnapshot(q: Queryable): Promise<SchemaSnapshot> {
  const [{ schema }] = await q.query<{ schema: string }>(sql`SELECT current_schema() AS schema`);
  const odd = await q.query<{ name: string; kind: string }>(sql`SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND NOT (c.relkind::text = ANY(${KNOWN_KINDS}))`);
  if (odd.length) throw new Error(`schema holds objects backup does not copy: ${odd.map((o) => `${o.name} (${o.kind})`).join(', ')}`);
  const tables = await q.query<TableRow>(sql`SELECT c.oid::int AS oid, c.relname AS name, c.relpersistence::text AS persistence
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname`);
  const out: TableShape[] = [];
  for (const t of tables) {
    const columnRows = await q.query<ColumnShape>(sql`SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
        a.attnotnull AS "notNull",
        CASE WHEN a.attgenerated = '' THEN pg_get_expr(d.adbin, d.adrelid) END AS default,
        CASE WHEN a.attcollation <> 0 AND a.attcollation <> ty.typcollation THEN co.collname::text END AS collation,
        CASE WHEN a.attgenerated <> '' THEN pg_get_expr(d.adbin, d.adrelid) END AS "generatedExpr"
      FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE a.attrelid = ${t.oid} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`);
    const columns = columnRows.map((c) => ({ ...c, default: c.default === null ? null : unqualified(c.default, schema) }));
    const constraintRows = await q.query<{ name: string; definition: string; foreign: boolean }>(sql`SELECT conname AS name,
        pg_get_constraintdef(oid) AS definition, contype = 'f' AS foreign
      FROM pg_constraint WHERE conrelid = ${t.oid} AND contype IN ('p', 'u', 'c', 'f', 'x') ORDER BY contype = 'f', conname`);
    const constraints = constraintRows.map((c) => ({ ...c, definition: unqualified(c.definition, schema) }));
    const indexes = await q.query<{ def: string }>(sql`SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
      WHERE i.indrelid = ${t.oid} AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)
      ORDER BY i.indexrelid`);
    out.push({ name: t.name, unlogged: t.persistence === 'u', columns, constraints, indexes: indexes.map((i) => unqualified(i.def, schema)) });
  }
  const seqNames = await q.query<{ name: string }>(sql`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'S' ORDER BY c.relname`);
  const sequences: SequenceShape[] = [];
  for (const s of seqNames) {
    const [pos] = await q.query<{ lastValue: string; isCalled: boolean }>(sql`SELECT last_value::text AS "lastValue", is_called AS "isCalled" FROM ${ident(s.name)}`);
    sequences.push({ name: s.name, lastValue: pos.lastValue, isCalled: pos.isCalled });
  }
  return { tables: out, sequences };
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The statements that create the tables and sequences (before the rows are loaded). */
export function createStatements(s: SchemaSnapshot): string[] {
  const out = s.sequences.map((q) => `CREATE SEQUENCE ${quote(q.name)}`);
  for (const t of s.tables) {
    const cols = t.columns.map((c) => {
      let def = `${quote(c.name)} ${c.type}`;
      if (c.collation) def += ` COLLATE ${quote(c.collation)}`;
      if (c.generatedExpr) def += ` GENERATED ALWAYS AS (${c.generatedExpr}) STORED`;
      else if (c.default !== null) def += ` DEFAULT ${c.default}`;
      if (c.notNull) def += ' NOT NULL';
      return def;
    });
    out.push(`CREATE ${t.unlogged ? 'UNLOGGED ' : ''}TABLE ${quote(t.name)} (${cols.join(', ')})`);
  }
  return out;
}

/** The statements that run after the rows: sequence positions, constraints, then indexes. */
export function finishStatements(s: SchemaSnapshot): string[] {
  const out = s.sequences.map((q) => `SELECT setval('${quote(q.name).replaceAll("'", "''")}'::regclass, ${BigInt(q.lastValue).toString()}, ${q.isCalled ? 'true' : 'false'})`);
  const all = s.tables.flatMap((t) => t.constraints.map((c) => ({ t, c })));
  for (const { t, c } of [...all.filter((x) => !x.c.foreign), ...all.filter((x) => x.c.foreign)]) {
    out.push(`ALTER TABLE ${quote(t.name)} ADD CONSTRAINT ${quote(c.name)} ${c.definition}`);
  }
  for (const t of s.tables) out.push(...t.indexes);
  return out;
}
