/**
 * The SQL expressions a field compiles to. A top-level field whose type the class schema knows
 * compiles to one fixed scalar expression (`((data->>'score')::numeric)`), the same text
 * `larder index add` puts into CREATE INDEX, so the planner matches the two. Reserved fields are
 * columns. Everything else (fields never written, dotted paths into objects, Object/GeoPoint/...
 * fields) compiles to a jsonb value that the condition compilers guard by JSON type.
 *
 * Paths: field names reach SQL as `jsonKey` string literals when every segment is a safe key
 * (`data->'address'->'city'`): literals keep the text identical to index expressions and
 * readable in logs. A path with any other segment (nested keys may hold other characters) is
 * one bound `text[]` parameter: `(data #> $1::text[])`.
 */
import { ApiError } from '../../errors/api-error.ts';
import type { ClassSchema, FieldType } from '../../model/class-schema.ts';
import { ident, isSafeKey, jsonKey, type Sql, sql } from '../../sql/fragment.ts';
import type { FieldPath } from '../ast.ts';
import { isReservedField, parseFieldKey, type ReservedField } from '../parse-key.ts';

/** Field types that compile to a typed scalar expression. */
export type ScalarType = 'String' | 'Number' | 'Boolean' | 'Date' | 'Pointer';

/** What a field path refers to, once resolved against the class schema. */
export type FieldTarget =
  | { readonly kind: 'column'; readonly name: ReservedField }
  | { readonly kind: 'scalar'; readonly name: string; readonly type: ScalarType; readonly className?: string }
  | { readonly kind: 'array'; readonly name: string }
  | { readonly kind: 'relation'; readonly name: string; readonly className?: string }
  | { readonly kind: 'json'; readonly path: FieldPath; readonly type?: FieldType };

const SCALAR_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['String', 'Number', 'Boolean', 'Date', 'Pointer']);

/** Resolves a parsed field path against the class schema. */
export function resolveField(schema: ClassSchema, path: FieldPath): FieldTarget {
  const [name] = path;
  if (path.length === 1 && isReservedField(name)) return { kind: 'column', name };
  const field = path.length === 1 && Object.prototype.hasOwnProperty.call(schema.fields, name) ? schema.fields[name] : undefined;
  if (!field) return { kind: 'json', path };
  if (SCALAR_TYPES.has(field.type)) {
    const type = field.type as ScalarType;
    return field.className === undefined ? { kind: 'scalar', name, type } : { kind: 'scalar', name, type, className: field.className };
  }
  if (field.type === 'Array') return { kind: 'array', name };
  if (field.type === 'Relation') {
    return field.className === undefined ? { kind: 'relation', name } : { kind: 'relation', name, className: field.className };
  }
  return { kind: 'json', path, type: field.type };
}

/** The jsonb value at a path of the `data` document (SQL NULL when missing). */
export function jsonPath(path: FieldPath): Sql {
  if (path.every((segment) => isSafeKey(segment))) {
    let expr = sql`data->${jsonKey(path[0])}`;
    for (const segment of path.slice(1)) expr = sql`${expr}->${jsonKey(segment)}`;
    return sql`(${expr})`;
  }
  return sql`(data #> ${[...path]}::text[])`;
}

/** A timestamptz column as the wire Date object, for jsonb comparisons ($select keys). */
function dateColumnJson(column: Sql): Sql {
  return sql`jsonb_build_object('__type', 'Date', 'iso', to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
}

/** The field's value as jsonb in wire form, whatever its kind (columns are converted). */
export function jsonValue(target: FieldTarget): Sql {
  switch (target.kind) {
    case 'column':
      return target.name === 'objectId' ? sql`to_jsonb("objectId")` : dateColumnJson(ident(target.name));
    case 'json':
      return jsonPath(target.path);
    default:
      return jsonPath([target.name]);
  }
}

/**
 * The typed scalar expression of a scalar field. Strings and Date iso strings use COLLATE "C"
 * so comparisons and sorts are byte-wise (what the original service did) on every engine.
 */
export function scalarExpr(name: string, type: ScalarType): Sql {
  const key = jsonKey(name);
  switch (type) {
    case 'String':
      return sql`((data->>${key}) COLLATE "C")`;
    case 'Number':
      return sql`((data->>${key})::numeric)`;
    case 'Boolean':
      return sql`((data->>${key})::boolean)`;
    case 'Date':
      return sql`((data->${key}->>'iso') COLLATE "C")`;
    case 'Pointer':
      return sql`(data->${key}->>'objectId')`;
  }
}

/**
 * A reserved column for ordering and range comparison. objectId gets COLLATE "C" here (byte-wise
 * order whatever the database collation); equality uses the bare column so the primary key
 * index serves it.
 */
export function columnForOrder(name: ReservedField): Sql {
  return name === 'objectId' ? sql`("objectId" COLLATE "C")` : ident(name);
}

/** How an index on a field is built: the expression and the access method. */
export interface IndexSpec {
  readonly expression: Sql;
  readonly using: 'btree' | 'gin';
}

/**
 * The index that serves queries on `field`. Scalars: a btree on exactly the expression the
 * compiler emits (`CREATE INDEX ... (<expression>)`). Built as `(<expression> NULLS FIRST,
 * "objectId")` it also serves `order` (which puts missing values first and ends with
 * `"objectId"`): ascending sorts read it directly, descending ones scan it backward under an
 * incremental sort (checked with EXPLAIN on PGlite). Array fields: a GIN index on `(data->'f')`, which serves equality ("contains"),
 * `$all` and `$in` on strings. Other fields cannot be indexed usefully: error 102.
 */
export function indexSpec(schema: ClassSchema, field: string): IndexSpec {
  const path = parseFieldKey(field);
  const target = resolveField(schema, path);
  switch (target.kind) {
    case 'column':
      return { expression: target.name === 'objectId' ? sql`"objectId"` : ident(target.name), using: 'btree' };
    case 'scalar':
      return { expression: scalarExpr(target.name, target.type), using: 'btree' };
    case 'array':
      return { expression: jsonPath([target.name]), using: 'gin' };
    default:
      throw new ApiError(
        'invalidQuery',
        `Field ${JSON.stringify(field)} cannot be indexed: only String, Number, Boolean, Date, Pointer and Array fields of the class schema can.`,
      );
  }
}

/** The expression an index on `field` must use so the planner picks it for compiled queries. */
export function indexExpression(schema: ClassSchema, field: string): Sql {
  return indexSpec(schema, field).expression;
}
