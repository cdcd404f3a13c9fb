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
import { join, raw, type Sql, sql } from '../../sql/fragment.ts';
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

function keyExpressions(target: FieldTarget): { exprs: Sql[]; nullable: boolean } {
  switch (target.kind) {
    case 'column':
      return { exprs: [columnForOrder(target.name)], nullable: false };
    case 'scalar':
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
 * (the `$nearSphere` distance from compileWhere) when given, else by objectId. Invalid keys
 * are error 105.
 */
export function compileOrder(order: string | undefined, schema: ClassSchema, nearOrder?: Sql): Sql {
  const keys = parseOrder(order);
  const items: Sql[] = [];
  if (keys.length === 0 && nearOrder) items.push(sql`${nearOrder} ASC`);
  for (const key of keys) {
    if (key.field === 'ACL') throw new ApiError('invalidKeyName', 'Invalid key name "ACL" in order.');
    const target = resolveField(schema, parseFieldKey(key.field));
    const { exprs, nullable } = keyExpressions(target);
    for (const expr of exprs) items.push(sql`${expr} ${direction(key.descending, nullable)}`);
  }
  // The tie-breaker runs the way the last key does, so that a `larder index add` index
  // (expression NULLS FIRST, "objectId") serves a descending order too, scanned backward,
  // with no sort step; any fixed tie order keeps paging with skip stable.
  const last = keys[keys.length - 1];
  if (!keys.some((k) => k.field === 'objectId')) items.push(sql`"objectId" ${raw(last?.descending ? 'DESC' : 'ASC')}`);
  return join(items, ', ');
}
