/**
 * The read plan of a class query (find, count, scan, strictlyQuery, friends queries): the where
 * parsed and checked against the field policy, its inner queries' class permissions checked,
 * compiled with the caller's ACL on the outer table and every inner one, and the order compiled.
 * This is the only way from a request's `where`/`order` to SQL over a class table.
 */
import type { Condition } from '../query/ast.ts';
import { parseWhere } from '../query/parse-where.ts';
import { compileOrder } from '../query/sql/compile-order.ts';
import { compileWhere } from '../query/sql/compile-where.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { ident, sql, type Sql } from '../sql/fragment.ts';
import { readAcl } from './acl.ts';
import { checkConditionFields, checkOrderFields, fieldView, type FieldView } from './field-policy.ts';
import { checkInnerQueries } from './inner-queries.ts';
import type { Access } from './read-access.ts';
import { queryShape, type QueryShape } from './reusable-shape.ts';
import { doubleSortKeys } from './double-sort-keys.ts';

/** What a read asks for. */
export interface QueryRequest {
  readonly where: unknown;
  readonly order?: string;
  /**
   * Fields a non-master caller may not name here besides the hidden and invisible ones
   * (strictlyQuery's protected fields); they are also dropped from rows (`view`).
   */
  readonly protect?: readonly string[];
  /** An endpoint's own rule on the parsed condition, for non-master callers, before any other check. */
  readonly restrict?: (cond: Condition) => void;
  /**
   * The table's index definitions, when the caller has them (storage/table-access-paths.ts): the
   * order's Number fields that none of them names sort by a double key (double-sort-keys.ts).
   */
  readonly indexes?: readonly string[];
}

/** A planned class read. */
export interface QueryPlan {
  /** The quoted class table. */
  readonly table: Sql;
  /** The WHERE: condition AND read ACL. */
  readonly filter: Sql;
  /** The condition without the outer read ACL (user writes; inner tables keep theirs). */
  readonly whereOnly: Sql;
  /** The ORDER BY list: `order`, else `$nearSphere` distance, else createdAt then objectId. */
  readonly order: Sql;
  /** The parsed condition (scan checks its key against it). */
  readonly cond: Condition;
  /** How rows are shown to the caller. */
  readonly view: FieldView;
  /** The fields its statement reads by, when it may be prepared at all (reusable-shape.ts). */
  readonly shape: QueryShape | undefined;
}

const DEFAULT_ORDER = sql`"createdAt", "objectId"`;

/** Plans a read of `schema`'s table for the caller; errors 102/105 (where, order), 403 (inner queries). */
export async function planQuery(access: Access, schema: ClassSchema, q: QueryRequest): Promise<QueryPlan> {
  const cond = parseWhere(q.where ?? {});
  if (q.restrict && !access.master) q.restrict(cond);
  const protect = q.protect ?? [];
  checkConditionFields(access, schema.name, cond, protect);
  checkOrderFields(access, schema.name, q.order, protect);
  const compiled = compileWhere(cond, { schema, schemaOf: access.schemaOf, readers: access.readers });
  await checkInnerQueries(access, cond);
  const doubles = q.indexes ? doubleSortKeys(q.order, schema, q.indexes) : undefined;
  const order = q.order ? compileOrder(q.order, schema, undefined, doubles) : compiled.nearOrder ? sql`${compiled.nearOrder}, "objectId"` : DEFAULT_ORDER;
  const view = fieldView(access, schema.name);
  return {
    table: ident(schema.name),
    filter: sql`(${compiled.condition}) AND ${readAcl(access.readers)}`,
    whereOnly: compiled.condition,
    order,
    cond,
    shape: queryShape(cond, q.order, schema),
    view: protect.length && !access.master ? { ...view, invisible: [...view.invisible, ...protect], selfId: undefined, textEncodable: false } : view,
  };
}
