/**
 * Which class queries may run as prepared statements (issue 16). A prepared statement skips
 * parsing, analysis and, once PostgreSQL has switched it to its generic plan (after five runs,
 * when that plan's estimated cost is no higher than the custom plans' average), planning: about
 * 40% of the peer bench's range statement. But a generic plan is made without the parameters'
 * values, so it guesses their selectivity (a range: 0.5% of the rows), and it keeps the access
 * path it chose for every value. That is harmless when the statement has at most one way into
 * the table besides reading all of it: with a wide value the one index reads the table in page
 * order (a bitmap scan), within a small factor of the sequential scan a custom plan would choose.
 * It can be ruinous with two: an index on the filtered field and one on the ordered field (the
 * generic plan keeps the filter's index, and a range over the whole table reads every row where
 * the custom plan reads 20 entries of the order's index), or two filtered fields. PostgreSQL's
 * own cost check compares estimates, which are the guesses, so it cannot catch this.
 *
 * A shape is therefore prepared only when:
 * - the reader is the master key (no ACL clause) or anonymous (the constant `'{*}'`, whose
 *   statistics the plan sees): any other reader's principals are a parameter, and the generic
 *   plan then takes the GIN `rperm` index for selective (docs/benchmarks.md, 17.5 against 1.37 ms);
 * - its conditions are plain comparisons on fields of the class (no regex, geo, inner query or
 *   Relation field: other tables, other ACL parameters, operators whose index use needs the value);
 * - at most one index of the table can serve it: one whose definition names a field of its
 *   conditions or the first field of its order, counting the GIN `rperm` index for anonymous
 *   readers unless the statistics show that `'*'` is on most rows (on a table of mostly private
 *   rows that index is the way in for an anonymous reader, and a second one).
 */
import type { Condition } from '../query/ast.ts';
import type { ClassSchema } from '../model/class-schema.ts';

/** What the table offers a plan: its indexes and how public its rows are. */
export interface TableAccessPaths {
  /** `pg_get_indexdef` of each index of the table, except the GIN `rperm` index. */
  readonly indexes: readonly string[];
  /** The share of rows whose `rperm` holds `'*'`, from the statistics; undefined without them. */
  readonly publicShare: number | undefined;
}

/** The fields a query's statement reads by: those of its conditions and the first of its order. */
export interface QueryShape {
  readonly fields: ReadonlySet<string>;
}

/** Fields stored as columns: an index names them quoted. The others are keys of `data`. */
const COLUMNS = new Set(['objectId', 'createdAt', 'updatedAt']);

/** Share of public rows from which the `rperm` index is no way in for the anonymous reader. */
export const MOSTLY_PUBLIC = 0.5;

/**
 * The shape of a planned query, or undefined when it is not a candidate at all (a condition
 * other than plain comparisons on the class's own non-Relation fields). `order` is the request's
 * `order` parameter; without one the order is createdAt.
 */
export function queryShape(cond: Condition, order: string | undefined, schema: ClassSchema): QueryShape | undefined {
  const fields = new Set<string>();
  if (!collect(cond, schema, fields)) return undefined;
  const first = order?.split(',')[0]?.trim().replace(/^-/, '') || 'createdAt';
  fields.add(first.split('.')[0]);
  return { fields };
}

function collect(cond: Condition, schema: ClassSchema, fields: Set<string>): boolean {
  switch (cond.kind) {
    case 'and':
    case 'or':
      return cond.conditions.every((c) => collect(c, schema, fields));
    case 'compare':
    case 'in':
    case 'all':
    case 'size':
    case 'exists': {
      const head = cond.field[0];
      if (schema.fields[head]?.type === 'Relation') return false;
      fields.add(head);
      return true;
    }
    default:
      return false;
  }
}

/**
 * Whether an index definition names the field (`"createdAt"`, or `data ->> 'n'::text`), anywhere
 * in it (a later column, a partial index's predicate: counting too many only prepares less).
 * But `"objectId"` only as a first column: every field index made by `larder index add` ends with
 * it as the order's tie-breaker, which serves no condition on objectId.
 */
export function indexNames(definition: string, field: string): boolean {
  if (field === 'objectId') return definition.includes('("objectId"');
  return COLUMNS.has(field) ? definition.includes(`"${field}"`) : definition.includes(`'${field}'::text`);
}

/**
 * Whether the statement of a query of this shape, for these readers, may be prepared: at most
 * one index of the table can serve it (see the file comment).
 */
export function reusableShape(shape: QueryShape | undefined, readers: readonly string[] | null, table: TableAccessPaths): boolean {
  if (!shape) return false;
  const anonymous = readers !== null && readers.length === 1 && readers[0] === '*';
  if (readers !== null && !anonymous) return false;
  let ways = table.indexes.filter((def) => [...shape.fields].some((f) => indexNames(def, f))).length;
  if (anonymous && !((table.publicShare ?? 0) >= MOSTLY_PUBLIC)) ways++;
  return ways <= 1;
}
