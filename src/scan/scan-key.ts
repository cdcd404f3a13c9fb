/**
 * The key a scan orders and pages by (`scan_key`): objectId (default), createdAt, updatedAt, or a
 * top-level String, Number, Date or Boolean field of the class. Each key compiles to a typed SQL
 * expression, the exact text of its value (kept in the cursor), and a keyset condition that
 * continues strictly after the last row: by (key, objectId), so a key shared by many rows never
 * repeats or skips one.
 */
import { ApiError } from '../errors/api-error.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { scalarExpr } from '../query/sql/field-expr.ts';
import { jsonKey, sql, type Sql } from '../sql/fragment.ts';

/** How a key's values are typed in SQL; fields may be missing (NULL), built-ins never are. */
type KeyKind = 'objectId' | 'timestamp' | 'number' | 'text' | 'boolean';

/** A resolved scan key. */
export interface ScanKey {
  /** The field name, without the `-`. */
  readonly name: string;
  readonly descending: boolean;
  readonly kind: KeyKind;
  /** The typed value, for ORDER BY and comparisons. */
  readonly expr: Sql;
  /** The value's exact text, stored in the cursor. */
  readonly text: Sql;
  /** Whether rows may lack a value (fields of the document). */
  readonly nullable: boolean;
}

/** objectId compared byte-wise, like every string sort here (design: strings sort byte-wise). */
const OBJECT_ID: Sql = sql`("objectId" COLLATE "C")`;

function cast(kind: KeyKind, value: string): Sql {
  switch (kind) {
    case 'timestamp':
      return sql`${value}::timestamptz`;
    case 'number':
      return sql`${value}::numeric`;
    case 'boolean':
      return sql`${value}::boolean`;
    default:
      return sql`${value}::text`;
  }
}

/** Resolves `scan_key` against the class (102 for a key that cannot order a scan). */
export function resolveScanKey(raw: string | undefined, schema: ClassSchema): ScanKey {
  const given = (raw ?? '').trim();
  const descending = given.startsWith('-');
  const name = descending ? given.slice(1) : given || 'objectId';
  if (name === 'objectId') return { name, descending, kind: 'objectId', expr: OBJECT_ID, text: sql`"objectId"`, nullable: false };
  if (name === 'createdAt' || name === 'updatedAt') {
    const col = name === 'createdAt' ? sql`"createdAt"` : sql`"updatedAt"`;
    // to_json keeps every microsecond, so the cursor resumes exactly where the page ended.
    return { name, descending, kind: 'timestamp', expr: col, text: sql`to_json(${col}) #>> '{}'`, nullable: false };
  }
  const field = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
  const allowed = 'objectId, createdAt, updatedAt or a String, Number, Date or Boolean field';
  if (!field) throw new ApiError('invalidQuery', `scan_key '${name.slice(0, 100)}' is not a field of class ${schema.name}; use ${allowed}.`);
  const k = jsonKey(name);
  // The query compiler's scalar expressions: the same text `larder index add` indexes, so an
  // index on the field serves the scan's ORDER BY and keyset condition.
  switch (field.type) {
    case 'String':
      return { name, descending, kind: 'text', expr: scalarExpr(name, 'String'), text: sql`data->>${k}`, nullable: true };
    case 'Date':
      // Stored ISO strings have one fixed format, so their text order is their time order.
      return { name, descending, kind: 'text', expr: scalarExpr(name, 'Date'), text: sql`data->${k}->>'iso'`, nullable: true };
    case 'Number':
      return { name, descending, kind: 'number', expr: scalarExpr(name, 'Number'), text: sql`data->>${k}`, nullable: true };
    case 'Boolean':
      return { name, descending, kind: 'boolean', expr: scalarExpr(name, 'Boolean'), text: sql`data->>${k}`, nullable: true };
    default:
      throw new ApiError('invalidQuery', `scan_key '${name}' has type ${field.type}, which cannot order a scan; use ${allowed}.`);
  }
}

/** ORDER BY of a scan: missing values last when ascending, first when descending (PostgreSQL's own order). */
export function scanOrder(key: ScanKey): Sql {
  if (key.kind === 'objectId') return key.descending ? sql`${OBJECT_ID} DESC` : sql`${OBJECT_ID} ASC`;
  return key.descending ? sql`${key.expr} DESC NULLS FIRST, ${OBJECT_ID} DESC` : sql`${key.expr} ASC NULLS LAST, ${OBJECT_ID} ASC`;
}

/** The condition that selects rows strictly after the last row of the previous page. */
export function afterCursor(key: ScanKey, lastValue: string | null, lastId: string): Sql {
  const id = sql`${lastId}::text`;
  if (key.kind === 'objectId') return key.descending ? sql`${OBJECT_ID} < ${id}` : sql`${OBJECT_ID} > ${id}`;
  const e = key.expr;
  if (lastValue === null) {
    if (!key.nullable) throw new ApiError('invalidQuery', 'Invalid scan cursor: it has no key value. Start the scan again without a cursor.');
    // Ascending: missing values come last, so only missing ones with a greater objectId remain.
    // Descending: they came first; the rest of the missing ones, then every row with a value.
    return key.descending ? sql`((${e} IS NULL AND ${OBJECT_ID} < ${id}) OR ${e} IS NOT NULL)` : sql`(${e} IS NULL AND ${OBJECT_ID} > ${id})`;
  }
  const v = cast(key.kind, lastValue);
  if (key.descending) return sql`(${e}, ${OBJECT_ID}) < (${v}, ${id})`;
  const after = sql`(${e}, ${OBJECT_ID}) > (${v}, ${id})`;
  return key.nullable ? sql`(${after} OR ${e} IS NULL)` : after;
}
