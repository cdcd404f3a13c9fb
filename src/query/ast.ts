/**
 * The typed AST of a `where` condition. The parser (parse-where.ts) produces it from request JSON,
 * checking syntax only; the compilers (sql/compile-*.ts) resolve fields against the class schema.
 * Nodes are plain readonly data so tests can compare them with deepEqual.
 */

/** A JSON value as it arrives on the wire (after JSON.parse). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** A field reference split on dots: `['address', 'city']` for `address.city`. Never empty. */
export type FieldPath = readonly [string, ...string[]];

/** A pointer as written in queries: `{__type: 'Pointer', className, objectId}`. */
export interface PointerRef {
  readonly className: string;
  readonly objectId: string;
}

/** A GeoPoint, validated to latitude in [-90, 90] and longitude in [-180, 180]. */
export interface GeoPoint {
  readonly latitude: number;
  readonly longitude: number;
}

/**
 * A value a condition compares with. Dates and pointers get their own kinds because every
 * compiler treats them specially; everything else that is not a scalar (arrays, plain objects,
 * GeoPoint, Bytes, File) is `json` and compares by exact JSON equality. Date iso strings are
 * normalised to the stored form `YYYY-MM-DDTHH:MM:SS.mmmZ`, also inside `json` values.
 */
export type QueryValue =
  | { readonly type: 'null' }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'number'; readonly value: number }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'date'; readonly iso: string }
  | { readonly type: 'pointer'; readonly className: string; readonly objectId: string }
  | { readonly type: 'json'; readonly value: JsonValue };

/** Comparison operators of `compare` nodes; `eq` on an array field means "contains". */
export type CompareOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

/** An inner query of `$inQuery`, `$notInQuery`, `$select` and `$dontSelect`. */
export interface SubQuery {
  readonly className: string;
  readonly where: Condition;
  /** Already resolved by the limit rules: 1..1000, default 100. */
  readonly limit: number;
  readonly skip: number;
  /** Raw `order` parameter of the inner query, compiled against the inner class. */
  readonly order?: string;
}

/** One node of a where condition (a discriminated union on `kind`). */
export type Condition =
  | { readonly kind: 'and'; readonly conditions: readonly Condition[] }
  | { readonly kind: 'or'; readonly conditions: readonly Condition[] }
  | { readonly kind: 'compare'; readonly field: FieldPath; readonly op: CompareOp; readonly value: QueryValue }
  | { readonly kind: 'in'; readonly field: FieldPath; readonly negated: boolean; readonly values: readonly QueryValue[] }
  | { readonly kind: 'all'; readonly field: FieldPath; readonly values: readonly QueryValue[] }
  | { readonly kind: 'size'; readonly field: FieldPath; readonly size: number }
  | { readonly kind: 'exists'; readonly field: FieldPath; readonly exists: boolean }
  | {
      readonly kind: 'regex';
      readonly field: FieldPath;
      /** The pattern as sent (PCRE/Java style) and its options, kept for messages and tests. */
      readonly source: string;
      readonly options: string;
      /** The translated PostgreSQL ARE, embedded options included: `(?p)^abc`. */
      readonly pattern: string;
      /** `{$not: {$regex}}` (CQL `not like` / `not regexp`): objects whose field does not match, missing fields included. */
      readonly negated?: boolean;
    }
  | { readonly kind: 'inQuery'; readonly field: FieldPath; readonly negated: boolean; readonly query: SubQuery }
  | {
      readonly kind: 'select';
      readonly field: FieldPath;
      readonly negated: boolean;
      readonly query: SubQuery;
      /** The key of the inner objects whose value must match (may be dotted or reserved). */
      readonly key: FieldPath;
    }
  | { readonly kind: 'relatedTo'; readonly owner: PointerRef; readonly key: string }
  | {
      readonly kind: 'near';
      readonly field: FieldPath;
      readonly point: GeoPoint;
      /** Bounds in radians (miles and kilometres are converted by the parser). */
      readonly maxRadians?: number;
      readonly minRadians?: number;
    }
  | { readonly kind: 'box'; readonly field: FieldPath; readonly southwest: GeoPoint; readonly northeast: GeoPoint };

/** The condition that matches everything (an empty where). */
export const MATCH_ALL: Condition = { kind: 'and', conditions: [] };

/** The wire JSON of a query value, as it is stored in the `data` document. */
export function valueToJson(value: QueryValue): JsonValue {
  switch (value.type) {
    case 'null':
      return null;
    case 'boolean':
    case 'number':
    case 'string':
    case 'json':
      return value.value;
    case 'date':
      return { __type: 'Date', iso: value.iso };
    case 'pointer':
      return { __type: 'Pointer', className: value.className, objectId: value.objectId };
    default:
      return assertNever(value);
  }
}

/** Exhaustiveness check for switches over the unions above. */
export function assertNever(value: never): never {
  throw new Error(`unexpected AST node: ${JSON.stringify(value)}`);
}
