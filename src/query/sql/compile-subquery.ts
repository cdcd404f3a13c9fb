/**
 * Conditions that read other rows: inner queries (`$inQuery`, `$notInQuery`, `$select`,
 * `$dontSelect`), `$relatedTo`, and conditions on Relation fields, which live in the join table
 * `_larder_relations`. Every inner query applies the reader's ACL (`rperm && readers`) and its
 * own LIMIT, so an inner query can never reveal or scan more than the caller could fetch
 * directly. An inner class the schema does not know matches nothing.
 */
import { ApiError } from '../../errors/api-error.ts';
import { ident, join, raw, type Sql, sql } from '../../sql/fragment.ts';
import type { Condition, FieldPath, PointerRef, QueryValue, SubQuery } from '../ast.ts';
import { unsupported } from './compile-compare.ts';
import { compileOrder } from './compile-order.ts';
import type { CompileContext } from './compile-where.ts';
import { type FieldTarget, jsonPath, jsonValue, resolveField, scalarExpr } from './field-expr.ts';
import { anyValue, FALSE, TRUE } from './json-predicates.ts';

/** Compiles a condition against a context (passed in to avoid an import cycle). */
export type ConditionCompiler = (cond: Condition, ctx: CompileContext) => Sql;

/** The join table holding every relation. */
export const RELATIONS_TABLE = '_larder_relations';

/** The anonymous reader's ACL filter, with its constant principal in the text (see aclClause). */
const PUBLIC_ONLY = sql`rperm && '{*}'::text[]`;

/**
 * The ACL filter: `rperm && $readers::text[]`, or TRUE for the master key (readers = null). A
 * reader with no user and no role reads by `'*'` alone: that constant of the code base (never
 * request data) is written into the text, so that the plan of a prepared statement, which is made
 * without the parameters' values, still sees from the statistics that `'*'` matches most rows of
 * a public class, and never ANDs the GIN `rperm` index into a bitmap scan (docs/benchmarks.md,
 * "Prepared statements").
 */
export function aclClause(readers: readonly string[] | null): Sql {
  if (readers === null) return raw('TRUE');
  if (readers.length === 1 && readers[0] === '*') return PUBLIC_ONLY;
  return sql`rperm && ${[...readers]}::text[]`;
}

/**
 * `(SELECT <column> FROM "<Inner>" WHERE <where> AND <acl> LIMIT n)`, or undefined when the inner
 * class is unknown. ORDER BY is added only when the inner query has `order` or `skip`: without
 * them any n matches are as good, and sorting would cost a pass over all of them.
 */
function innerSelect(
  query: SubQuery,
  column: (target: FieldTarget) => Sql,
  ctx: CompileContext,
  compile: ConditionCompiler,
  key: FieldPath = ['objectId'],
): Sql | undefined {
  const schema = ctx.schemaOf(query.className);
  if (!schema) return undefined;
  const inner: CompileContext = { ...ctx, schema };
  const where = compile(query.where, inner);
  const filters = where === TRUE ? [] : [where];
  if (ctx.readers !== null) filters.push(aclClause(ctx.readers));
  if (filters.length === 0) filters.push(TRUE);
  const order = query.order !== undefined || query.skip > 0 ? sql` ORDER BY ${compileOrder(query.order, schema)}` : sql``;
  const offset = query.skip > 0 ? sql` OFFSET ${query.skip}::bigint` : sql``;
  return sql`(SELECT ${column(resolveField(schema, key))} FROM ${ident(schema.name)} WHERE ${join(filters, ' AND ')}${order} LIMIT ${query.limit}::int${offset})`;
}

/** `$inQuery` (the caller negates for `$notInQuery`): the pointer's target matches the inner query. */
export function compileInQuery(target: FieldTarget, query: SubQuery, ctx: CompileContext, compile: ConditionCompiler): Sql {
  const ids = innerSelect(query, () => sql`"objectId"`, ctx, compile);
  if (!ids) return FALSE;
  switch (target.kind) {
    case 'scalar': {
      if (target.type !== 'Pointer' || (target.className !== undefined && target.className !== query.className)) return FALSE;
      const match = sql`${scalarExpr(target.name, 'Pointer')} IN ${ids}`;
      if (target.className !== undefined) return match;
      return sql`(${match} AND (${jsonPath([target.name])}->>'className') = ${query.className})`;
    }
    case 'array':
    case 'json': {
      const v = target.kind === 'json' ? jsonPath(target.path) : jsonPath([target.name]);
      return anyValue(v, (x) => sql`((${x}->>'__type') = 'Pointer' AND (${x}->>'className') = ${query.className} AND (${x}->>'objectId') IN ${ids})`);
    }
    case 'relation':
      return relationMembers(target, ctx, sql`target_class = ${query.className} AND target_id IN ${ids}`);
    case 'column':
      throw new ApiError('invalidQuery', `$inQuery and $notInQuery need a Pointer field; ${target.name} is not one.`);
  }
}

/** `$select` (the caller negates for `$dontSelect`): the field equals `key` of an inner result. */
export function compileSelect(
  target: FieldTarget,
  query: SubQuery,
  key: FieldPath,
  ctx: CompileContext,
  compile: ConditionCompiler,
): Sql {
  const values = innerSelect(query, jsonValue, ctx, compile, key);
  if (!values) return FALSE;
  switch (target.kind) {
    case 'column':
    case 'scalar':
      return sql`${jsonValue(target)} IN ${values}`;
    case 'array':
    case 'json':
      return anyValue(jsonValue(target), (x) => sql`${x} IN ${values}`);
    case 'relation':
      throw unsupported('$select', target.name);
  }
}

/**
 * `$relatedTo`: this object is in the relation `key` of `owner`. The owner must be readable by
 * the caller (its ACL; unknown class or object: nothing), else the members of a relation would
 * reveal what the owner's ACL hides. The owner test is uncorrelated: PostgreSQL runs it once.
 */
export function compileRelatedTo(owner: PointerRef, key: string, ctx: CompileContext): Sql {
  const members = sql`"objectId" IN (SELECT target_id FROM ${ident(RELATIONS_TABLE)} WHERE owner_class = ${owner.className} AND owner_id = ${owner.objectId} AND key = ${key} AND target_class = ${ctx.schema.name})`;
  if (ctx.readers === null) return members;
  const ownerSchema = ctx.schemaOf(owner.className);
  if (!ownerSchema) return FALSE;
  return sql`(EXISTS (SELECT 1 FROM ${ident(ownerSchema.name)} WHERE "objectId" = ${owner.objectId} AND ${aclClause(ctx.readers)}) AND ${members})`;
}

/** This object has a member of its Relation field `target` that satisfies `filter`. */
function relationMembers(target: FieldTarget & { kind: 'relation' }, ctx: CompileContext, filter: Sql): Sql {
  return sql`"objectId" IN (SELECT owner_id FROM ${ident(RELATIONS_TABLE)} WHERE owner_class = ${ctx.schema.name} AND key = ${target.name} AND ${filter})`;
}

function pointersOf(values: readonly QueryValue[]): PointerRef[] {
  return values.flatMap((v) => (v.type === 'pointer' ? [{ className: v.className, objectId: v.objectId }] : []));
}

/**
 * Equality and `$in` on a Relation field (e.g. roles whose `users` holds a user): members come
 * from the join table. Only pointers can be members, so other values match nothing.
 */
export function compileRelationIn(target: FieldTarget & { kind: 'relation' }, values: readonly QueryValue[], ctx: CompileContext): Sql {
  const pointers = pointersOf(values);
  if (pointers.length === 0) return FALSE;
  if (pointers.length === 1) {
    return relationMembers(target, ctx, sql`target_class = ${pointers[0].className} AND target_id = ${pointers[0].objectId}`);
  }
  const classes = pointers.map((p) => p.className);
  const ids = pointers.map((p) => p.objectId);
  return relationMembers(target, ctx, sql`(target_class, target_id) IN (SELECT * FROM unnest(${classes}::text[], ${ids}::text[]))`);
}
