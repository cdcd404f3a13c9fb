/**
 * Compiles the `order` parameter (comma-separated keys, `-` for descending) into the list that
 * follows ORDER BY. Like the original service (MongoDB): strings sort byte-wise (COLLATE "C"),
 * numbers numerically, dates chronologically, missing values first when ascending and last when
 * descending. Fields of unknown type sort by a type bucket in MongoDB's BSON order (null <
 * numbers < strings < objects < arrays < booleans < dates) and then by value within the bucket.
 * `"objectId"` always ends the list so that paging with skip is stable; it runs the way the last
 * key does (see compileOrder).
 */
import { ApiError } from '../../errors/api-error.ts';
import type { ClassSchema } from '../../model/class-schema.ts';
import { join, jsonKey, raw, type Sql, sql } from '../../sql/fragment.ts';
import { parseFieldKey } from '../parse-key.ts';
import { parseOrder } from '../parse-order.ts';
import { columnForOrder, type FieldTarget, jsonPath, resolveField, scalarExpr } from './field-expr.ts';

/** The BSON-like type bucket of a jsonb value; missing and null are bucket 1. */
function bucket(v: Sql): Sql {
  return sql`(CASE WHEN ${v} IS NULL OR jsonb_typeof(${v}) = 'null' THEN 1 WHEN jsonb_typeof(${v}) = 'number' THEN 2 WHEN jsonb_typeof(${v}) = 'string' THEN 3 WHEN (${v}->>'__type') = 'Date' THEN 9 WHEN jsonb_typeof(${v}) = 'object' THEN 4 WHEN jsonb_typeof(${v}) = 'array' THEN 5 ELSE 8 END)`;
}

/** Sort expressions for a value of unknown type: bucket, then the value in its own type's order. */
function genericKeys(v: Sql): Sql[] {
  return [
    bucket(v),
    sql`(CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END)`,
    sql`((CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END) COLLATE "C")`,
    sql`((CASE WHEN (${v}->>'__type') = 'Date' THEN ${v}->>'iso' END) COLLATE "C")`,
    v,
  ];
}

function direction(descending: boolean, withNulls: boolean): Sql {
  if (!withNulls) return raw(descending ? 'DESC' : 'ASC');
  return sql`${raw(descending ? 'DESC' : 'ASC')} ${raw(descending ? 'NULLS LAST' : 'NULLS FIRST')}`;
}

/**
 * A Number field's sort key as a double: for fields no index names (plan/double-sort-keys.ts says
 * why it orders alike and costs less). Indexed fields keep scalarExpr's, the index's expression.
 */
function doubleKey(name: string): Sql {
  return sql`((data->>${jsonKey(name)})::float8)`;
}

function keyExpressions(target: FieldTarget, doubles: ReadonlySet<string> | undefined): { exprs: Sql[]; nullable: boolean } {
  switch (target.kind) {
    case 'column':
      return { exprs: [columnForOrder(target.name)], nullable: false };
    case 'scalar':
      if (target.type === 'Number' && doubles?.has(target.name)) return { exprs: [doubleKey(target.name)], nullable: true };
      return { exprs: [scalarExpr(target.name, target.type)], nullable: true };
    case 'json':
      return { exprs: genericKeys(jsonPath(target.path)), nullable: false };
    case 'array':
    case 'relation':
      return { exprs: genericKeys(jsonPath([target.name])), nullable: false };
  }
}

/**
 * The ORDER BY list for `order` (without the keywords). With no keys it orders by `nearOrder`
 * (the `$nearSphere` distance from compileWhere) when given, else by objectId. `doubles`: Number
 * fields to sort by a double key (plan/double-sort-keys.ts). Invalid keys are error 105.
 */
export function compileOrder(order: string | undefined, schema: ClassSchema, nearOrder?: Sql, doubles?: ReadonlySet<string>): Sql {
  const keys = parseOrder(order);
  const items: Sql[] = [];
  if (keys.length === 0 && nearOrder) items.push(sql`${nearOrder} ASC`);
  for (const key of keys) {
    if (key.field === 'ACL') throw new ApiError('invalidKeyName', 'Invalid key name "ACL" in order.');
    const target = resolveField(schema, parseFieldKey(key.field));
    const { exprs, nullable } = keyExpressions(target, doubles);
    for (const expr of exprs) items.push(sql`${expr} ${direction(key.descending, nullable)}`);
  }
  // The tie-breaker runs the way the last key does, so that a `larder index add` index
  // (expression NULLS FIRST, "objectId") serves a descending order too, scanned backward,
  // with no sort step; any fixed tie order keeps paging with skip stable.
  const last = keys[keys.length - 1];
  if (!keys.some((k) => k.field === 'objectId')) items.push(sql`"objectId" ${raw(last?.descending ? 'DESC' : 'ASC')}`);
  return join(items, ', ');
}
