/**
 * Operator-made indexes on class fields (`larder index add/list/drop`; an admin endpoint may
 * reuse these use-cases). Each index is built on exactly the expression the query compiler
 * emits for the field (`indexSpec` in query/sql/field-expr.ts), so the planner can match the
 * two, and is recorded in `_larder_classes.indexes` so that it can be listed and dropped.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error.ts';
import { indexSpec, type IndexSpec } from '../query/sql/field-expr.ts';
import { isReservedField } from '../query/parse-key.ts';
import { ident, sql, type Sql } from '../sql/fragment.ts';
import { indexName } from '../storage/class-table.ts';
import type { Database } from '../storage/database.ts';
import { forgetAccessPaths } from '../storage/table-access-paths.ts';
import type { ClassRegistry } from '../schema/class-registry.ts';
import { checkClassName, isValidKeyName } from '../model/names.ts';
import type { FieldType } from '../model/class-schema.ts';

/** What the index use-cases need. */
export interface IndexDeps {
  db: Database;
  classes: ClassRegistry;
}

/** One index as recorded in `_larder_classes.indexes`. */
export interface IndexRecord {
  /** The index name in the database. */
  name: string;
  field: string;
  type: FieldType;
  using: IndexSpec['using'];
  /** The column list of the index, as created. */
  columns: string;
}

/** An index record with its class and its state in the database. */
export interface ListedIndex extends IndexRecord {
  className: string;
  /** 'ready': usable; 'invalid': a failed concurrent build (re-run `index add`); 'missing': dropped outside Larder. */
  state: 'ready' | 'invalid' | 'missing';
}

/** The outcome of `addIndex`. */
export type AddIndexResult =
  | { outcome: 'created' | 'exists'; index: IndexRecord }
  /** createdAt, updatedAt and objectId are indexed by every class table already. */
  | { outcome: 'builtIn'; index: { name: string; field: string } };

/**
 * The index name: `_lx_<hash of class>_f_<field>`, in the `_lx_` namespace of class-table.ts.
 * Index and table names share one namespace in PostgreSQL, and no class name can start with
 * `_lx_`, so an index can never take the name of a class table (nor of another class's index);
 * `f_` keeps user fields apart from the built-in rperm/createdAt/updatedAt indexes. Fields too
 * long for the 63-byte limit are named `h_<hash of field>`.
 */
export function fieldIndexName(className: string, field: string): string {
  const name = indexName(className, `f_${field}`);
  if (name.length <= 63) return name;
  return indexName(className, `h_${createHash('sha256').update(field).digest('hex').slice(0, 16)}`);
}

/** The built-in index serving a reserved field (class-table.ts creates them with the table). */
async function builtInIndex(db: Database, className: string, field: 'objectId' | 'createdAt' | 'updatedAt'): Promise<string> {
  if (field !== 'objectId') return indexName(className, field);
  const rows = await db.query<{ name: string }>(sql`
    SELECT c.relname AS name FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = ${db.schema} AND t.relname = ${className} AND i.indisprimary`);
  return rows[0]?.name ?? 'primary key';
}

/**
 * The column list of the index. A compiled `order` on the field is `<expr> ASC NULLS FIRST,
 * "objectId" ASC` (missing values first, objectId as tie-breaker), so the btree is built in
 * exactly that order and serves the filter and the sort at once; `-field` (DESC NULLS LAST)
 * reads it backwards.
 */
function columnsOf(spec: IndexSpec): Sql {
  return spec.using === 'btree' ? sql`${spec.expression} NULLS FIRST, "objectId"` : spec.expression;
}

/** The constant text of an index column list (field names are literals, never parameters). */
function render(fragment: Sql): string {
  const q = fragment.toQuery();
  if (q.values.length) throw new Error('index DDL must not take parameters');
  return q.text;
}

interface ExistingIndex {
  table: string;
  valid: boolean;
}

async function findIndex(db: Database, name: string): Promise<ExistingIndex | undefined> {
  const rows = await db.query<ExistingIndex>(sql`
    SELECT t.relname AS "table", i.indisvalid AS valid
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${db.schema} AND c.relname = ${name}`);
  return rows[0];
}

/** PostgreSQL builds without blocking writes; PGlite has one connection and no CONCURRENTLY. */
function concurrently(db: Database): string {
  return db.engine === 'postgres' ? ' CONCURRENTLY' : '';
}

async function dropIndexByName(db: Database, name: string): Promise<void> {
  // DDL text built from a checked identifier only; CONCURRENTLY must run outside a transaction.
  await db.exec(`DROP INDEX${concurrently(db)} IF EXISTS ${render(ident(name))}`);
}

/**
 * Refreshes the table's statistics, which include those of expression indexes: without them the
 * planner guesses and may keep scanning the table. The embedded engine has no autovacuum, so
 * nothing else would ever do this there; running `index add` again refreshes them.
 */
async function analyze(db: Database, className: string): Promise<void> {
  await db.exec(`ANALYZE ${render(ident(className))}`);
  // Which of its queries may run prepared depends on its indexes (plan/reusable-shape.ts).
  forgetAccessPaths(db, className);
}

async function loadRecords(db: Database, className: string): Promise<IndexRecord[]> {
  const rows = await db.query<{ indexes: IndexRecord[] }>(sql`SELECT indexes FROM _larder_classes WHERE name = ${className}`);
  return rows[0]?.indexes ?? [];
}

async function saveRecord(db: Database, className: string, field: string, record: IndexRecord | undefined): Promise<void> {
  await db.query(sql`
    UPDATE _larder_classes SET indexes = (
      SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(indexes) e WHERE e->>'field' <> ${field}
    ) || ${JSON.stringify(record ? [record] : [])}::jsonb
    WHERE name = ${className}`);
}

async function existingClass(deps: IndexDeps, className: string) {
  checkClassName(className);
  deps.classes.forget(className); // the catalogue may have changed since this process loaded it
  const schema = await deps.classes.find(className);
  if (!schema) throw new ApiError('classNotFound', `Class '${className}' does not exist.`);
  return schema;
}

function checkFieldName(field: string): void {
  if (!isValidKeyName(field)) {
    throw new ApiError('invalidKeyName', `Invalid field name '${field.slice(0, 80)}': indexes are made on top-level fields (letters, digits and _, starting with a letter).`);
  }
}

/**
 * Creates the index that serves queries on `className.field` (idempotent). The field's type
 * comes from the class catalogue: String, Number, Boolean, Date and Pointer get a btree on the
 * compiled scalar expression, Array a GIN index on the jsonb array; other types are error 102.
 */
export async function addIndex(deps: IndexDeps, className: string, field: string): Promise<AddIndexResult> {
  const schema = await existingClass(deps, className);
  if (isReservedField(field)) return { outcome: 'builtIn', index: { name: await builtInIndex(deps.db, className, field), field } };
  checkFieldName(field);
  const type = Object.prototype.hasOwnProperty.call(schema.fields, field) ? schema.fields[field].type : undefined;
  if (!type) {
    const known = Object.keys(schema.fields).sort();
    throw new ApiError('invalidQuery', `Class '${className}' has no field '${field}'${known.length ? ` (its fields: ${known.join(', ')})` : ' (it has no fields yet)'}. A field exists once an object with it has been saved.`);
  }
  const spec = indexSpec(schema, field);
  const columns = render(columnsOf(spec));
  const { db } = deps;
  const recorded = (await loadRecords(db, className)).find((r) => r.field === field);
  const name = fieldIndexName(className, field);
  const existing = await findIndex(db, name);
  const record: IndexRecord = { name, field, type, using: spec.using, columns };
  const same = recorded && recorded.name === name && recorded.columns === columns && recorded.using === spec.using;
  if (existing?.valid && same) {
    await analyze(db, className);
    return { outcome: 'exists', index: record };
  }
  // An index of ours that is invalid (a failed concurrent build) or built on another expression.
  if (existing) await dropIndexByName(db, name);
  if (recorded && recorded.name !== name) await dropIndexByName(db, recorded.name);
  const using = spec.using === 'gin' ? ' USING gin' : '';
  try {
    await db.exec(`CREATE INDEX${concurrently(db)} IF NOT EXISTS ${render(ident(name))} ON ${render(ident(className))}${using} (${columns})`);
  } catch (err) {
    // A failed CONCURRENTLY build leaves an invalid index behind; remove it.
    await dropIndexByName(db, name).catch(() => {});
    throw err;
  }
  await saveRecord(db, className, field, record);
  await analyze(db, className);
  return { outcome: 'created', index: record };
}

/** Drops an index made by `addIndex`; error when there is none on that field. */
export async function dropIndex(deps: IndexDeps, className: string, field: string): Promise<IndexRecord> {
  await existingClass(deps, className);
  if (isReservedField(field)) throw new ApiError('invalidQuery', `The index on ${field} is built in and cannot be dropped.`);
  checkFieldName(field);
  const record = (await loadRecords(deps.db, className)).find((r) => r.field === field);
  if (!record) throw new ApiError('invalidQuery', `There is no index on ${className}.${field} made with 'index add'.`);
  await dropIndexByName(deps.db, record.name);
  forgetAccessPaths(deps.db, className);
  await saveRecord(deps.db, className, field, undefined);
  return record;
}

/** Every index made by `addIndex` (of one class, or of all), with its state in the database. */
export async function listIndexes(deps: IndexDeps, className?: string): Promise<ListedIndex[]> {
  if (className !== undefined) await existingClass(deps, className);
  const rows = await deps.db.query<{ name: string; indexes: IndexRecord[] }>(
    className === undefined
      ? sql`SELECT name, indexes FROM _larder_classes ORDER BY name`
      : sql`SELECT name, indexes FROM _larder_classes WHERE name = ${className}`,
  );
  const out: ListedIndex[] = [];
  for (const row of rows) {
    for (const r of [...row.indexes].sort((a, b) => (a.field < b.field ? -1 : 1))) {
      const found = await findIndex(deps.db, r.name);
      const state = !found || found.table !== row.name ? 'missing' : found.valid ? 'ready' : 'invalid';
      out.push({ ...r, className: row.name, state });
    }
  }
  return out;
}
