/**
 * Which Number fields of a query's order sort by a `double precision` key (issue 16).
 *
 * A Number field's sort key is `((data->>'f')::numeric)`, the expression `larder index add`
 * indexes, so that an index on the field serves the order. Where no index names the field, the
 * key is only ever computed for the matching rows and sorted, and `((data->>'f')::float8)` costs
 * PostgreSQL less: `float8in` instead of `numeric_in`, and a by-value datum that the sort copies
 * and compares cheaply instead of a numeric (the peer bench's range query, `order=-score`: about
 * 45 us of 470 per statement; docs/benchmarks.md, "The sort key as a double"). PostgreSQL only:
 * the embedded engine's float8in (WebAssembly) costs about four times its numeric_in, so
 * objects/find-objects.ts gives the indexes only on PostgreSQL.
 *
 * The order is the same for every value a client can write: numbers reach Larder as JSON numbers
 * parsed into doubles, and the shortest text of distinct doubles compares as the doubles do, so
 * numeric and double order them alike and tie exactly when they are equal. Only two numerics that
 * are one double apart from no JSON client's point of view (more than 17 significant digits, which
 * only exact numeric Increments of such values make) tie under the double key and fall to the
 * objectId tie-breaker. A string in a Number field (none can be written; the schema refuses it)
 * that numeric refuses and a double accepts (`"0x1A"`, `"inf"`) sorts instead of failing.
 */
import type { ClassSchema } from '../model/class-schema.ts';
import { parseOrder } from '../query/parse-order.ts';
import { isSafeKey } from '../sql/fragment.ts';
import { indexNames } from './reusable-shape.ts';

/**
 * The top-level Number fields of `order` that no index of the table (`pg_get_indexdef` of each)
 * names: their sort key may be a double. A field whose name is not a safe key is left out, since
 * its quoted form in an index definition is not looked for.
 */
export function doubleSortKeys(order: string | undefined, schema: ClassSchema, indexes: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const { field: name } of parseOrder(order)) {
    if (!Object.hasOwn(schema.fields, name) || schema.fields[name].type !== 'Number' || !isSafeKey(name)) continue;
    if (!indexes.some((def) => indexNames(def, name))) out.add(name);
  }
  return out;
}
