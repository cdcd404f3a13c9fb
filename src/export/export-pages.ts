/**
 * Page readers of the export: keyset pagination (never OFFSET), so each page costs the same
 * however deep into a class it is, and a page can be re-read from a stored cursor after a
 * restart. Objects page by objectId (the primary key); relation rows by (owner, target).
 */
import { expandFiles } from '../objects/expand-files.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { empty, ident, sql, type Sql } from '../sql/fragment.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import type { Queryable } from '../storage/database.ts';
import { exportRow } from './export-row.ts';
import type { SpoolPage } from './spool-file.ts';

/** The updatedAt window of an export. */
export interface DateRange {
  fromDate?: string;
  toDate?: string;
}

function rangeOn(column: Sql, range: DateRange): Sql {
  const from = range.fromDate ? sql` AND ${column} >= ${range.fromDate}::timestamptz` : empty;
  const to = range.toDate ? sql` AND ${column} < ${range.toDate}::timestamptz` : empty;
  return sql`${from}${to}`;
}

/** Reads the page of objects after `cursor` and encodes it as export lines. */
export async function classPage(db: Queryable, className: string, range: DateRange, cursor: string | undefined, limit: number, schema?: ClassSchema): Promise<SpoolPage | undefined> {
  const after = cursor === undefined ? empty : sql` AND "objectId" > ${cursor}`;
  const rows = await db.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${ident(className)}
    WHERE TRUE${after}${rangeOn(sql`"updatedAt"`, range)} ORDER BY "objectId" LIMIT ${limit}`);
  if (!rows.length) return undefined;
  const objects = rows.map((r) => exportRow(r, className, schema));
  // Files as the API shows them (name, url, mime_type, metaData...), one query per page.
  await expandFiles(db, objects);
  return { text: objects.map((o) => `${JSON.stringify(o)}\n`).join(''), rows: rows.length, cursor: rows[rows.length - 1].objectId };
}

/** A relation cursor: the last (owner, target) pair, JSON-encoded (ids may hold any character). */
function parseJoinCursor(cursor: string | undefined): [string, string] | undefined {
  if (cursor === undefined) return undefined;
  const v: unknown = JSON.parse(cursor);
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') throw new Error('corrupt relation cursor');
  return [v[0], v[1]];
}

/**
 * Reads the page of relation rows of (className, key) after `cursor`, as `{owningId, relatedId}`
 * lines. With a date range, only rows of owning objects inside it are exported (an AddRelation
 * changes the owner's updatedAt), so an incremental export carries the membership of the
 * objects it carries.
 */
export async function joinPage(db: Queryable, className: string, key: string, range: DateRange, cursor: string | undefined, limit: number): Promise<SpoolPage | undefined> {
  const last = parseJoinCursor(cursor);
  const after = last ? sql` AND (r.owner_id, r.target_id) > (${last[0]}, ${last[1]})` : empty;
  const owners = range.fromDate || range.toDate
    ? sql` AND EXISTS (SELECT 1 FROM ${ident(className)} o WHERE o."objectId" = r.owner_id${rangeOn(sql`o."updatedAt"`, range)})`
    : empty;
  const rows = await db.query<{ owner_id: string; target_id: string }>(sql`SELECT r.owner_id, r.target_id FROM _larder_relations r
    WHERE r.owner_class = ${className} AND r.key = ${key}${after}${owners} ORDER BY r.owner_id, r.target_id LIMIT ${limit}`);
  if (!rows.length) return undefined;
  const end = rows[rows.length - 1];
  return {
    text: rows.map((r) => `${JSON.stringify({ owningId: r.owner_id, relatedId: r.target_id })}\n`).join(''),
    rows: rows.length,
    cursor: JSON.stringify([end.owner_id, end.target_id]),
  };
}

/** Relation columns of a class that have rows (besides those its schema declares). */
export async function relationKeys(db: Queryable, className: string): Promise<{ key: string; target: string }[]> {
  return db.query(sql`SELECT key, min(target_class) AS target FROM _larder_relations WHERE owner_class = ${className} GROUP BY key ORDER BY key`);
}
