/**
 * Compiles a parsed where condition into one boolean SQL fragment for a WHERE clause over a
 * class table (unqualified columns: "objectId", "createdAt", "updatedAt", acl, rperm, data).
 * Fields are resolved against the class schema here: known types compile to index-friendly
 * typed expressions, unknown ones to type-guarded jsonb tests (see field-expr.ts).
 *
 * The outer ACL is NOT part of the result: the planner (src/plan/plan-query.ts) adds it next
 * to it. `readers` in the context is used for inner queries, which must filter by ACL
 * themselves.
 */
import { join, type Sql, sql } from '../../sql/fragment.ts';
import type { ClassSchema } from '../../model/class-schema.ts';
import { assertNever, type Condition } from '../ast.ts';
import {
  compileAll, compileEquals, compileExists, compileIn, compileOrdering, compileRegex, compileSize, unsupported,
} from './compile-compare.ts';
import { compileBox, compileNear, distanceExpr } from './compile-geo.ts';
import { compileInQuery, compileRelatedTo, compileRelationIn, compileSelect } from './compile-subquery.ts';
import { type FieldTarget, resolveField } from './field-expr.ts';
import { FALSE, not, TRUE } from './json-predicates.ts';

/** What compiling needs besides the condition. */
export interface CompileContext {
  /** The class being queried. */
  readonly schema: ClassSchema;
  /** Schemas of other classes, for inner queries; undefined when the class does not exist. */
  schemaOf(className: string): ClassSchema | undefined;
  /** Principals of the caller ('*', userId, 'role:<name>'); null = master key, no ACL. */
  readonly readers: readonly string[] | null;
}

/** The compiled where. */
export interface CompiledWhere {
  /** Boolean fragment for WHERE (TRUE for an empty where). */
  readonly condition: Sql;
  /**
   * The distance expression of a top-level `$nearSphere` (radians, ascending = nearest first).
   * Pass it to compileOrder: results are ordered by distance unless `order` is given.
   */
  readonly nearOrder?: Sql;
}

/** Compiles a where for the class in `ctx.schema`. */
export function compileWhere(cond: Condition, ctx: CompileContext): CompiledWhere {
  const condition = compileCondition(cond, ctx);
  const near = topLevelNear(cond);
  const nearOrder = near ? distanceExpr(resolveField(ctx.schema, near.field), near.point) : undefined;
  return nearOrder ? { condition, nearOrder } : { condition };
}

/** The first `$nearSphere` AND-ed at the top (the parser forbids it inside $or/$and). */
function topLevelNear(cond: Condition): (Condition & { kind: 'near' }) | undefined {
  if (cond.kind === 'near') return cond;
  if (cond.kind === 'and') {
    for (const c of cond.conditions) if (c.kind === 'near') return c;
  }
  return undefined;
}

/** Compiles one condition node to a boolean fragment. */
export function compileCondition(cond: Condition, ctx: CompileContext): Sql {
  switch (cond.kind) {
    case 'and':
      return cond.conditions.length === 0 ? TRUE : group(cond.conditions, ctx, ' AND ');
    case 'or':
      return cond.conditions.length === 0 ? FALSE : group(cond.conditions, ctx, ' OR ');
    case 'compare':
      return compileCompare(resolveField(ctx.schema, cond.field), cond, ctx);
    case 'in': {
      const target = resolveField(ctx.schema, cond.field);
      const positive = target.kind === 'relation' ? compileRelationIn(target, cond.values, ctx) : compileIn(target, cond.values);
      return cond.negated ? not(positive) : positive;
    }
    case 'all': {
      const target = resolveField(ctx.schema, cond.field);
      if (target.kind !== 'relation') return compileAll(target, cond.values);
      if (cond.values.length === 0) return FALSE;
      return sql`(${join(cond.values.map((v) => compileRelationIn(target, [v], ctx)), ' AND ')})`;
    }
    case 'size':
      return compileSize(resolveField(ctx.schema, cond.field), cond.size);
    case 'exists':
      return compileExists(resolveField(ctx.schema, cond.field), cond.exists);
    case 'regex': {
      const match = compileRegex(resolveField(ctx.schema, cond.field), cond.pattern);
      // A negated regex matches every object the regex does not, missing fields included.
      return cond.negated ? sql`NOT COALESCE((${match}), FALSE)` : match;
    }
    case 'inQuery': {
      const positive = compileInQuery(resolveField(ctx.schema, cond.field), cond.query, ctx, compileCondition);
      return cond.negated ? not(positive) : positive;
    }
    case 'select': {
      const positive = compileSelect(resolveField(ctx.schema, cond.field), cond.query, cond.key, ctx, compileCondition);
      return cond.negated ? not(positive) : positive;
    }
    case 'relatedTo':
      return compileRelatedTo(cond.owner, cond.key, ctx);
    case 'near':
      return compileNear(resolveField(ctx.schema, cond.field), cond.point, cond.maxRadians, cond.minRadians);
    case 'box':
      return compileBox(resolveField(ctx.schema, cond.field), cond.southwest, cond.northeast);
    default:
      return assertNever(cond);
  }
}

function group(conditions: readonly Condition[], ctx: CompileContext, separator: ' AND ' | ' OR '): Sql {
  if (conditions.length === 1) return compileCondition(conditions[0], ctx);
  return sql`(${join(conditions.map((c) => compileCondition(c, ctx)), separator)})`;
}

function compileCompare(target: FieldTarget, cond: Condition & { kind: 'compare' }, ctx: CompileContext): Sql {
  if (target.kind === 'relation') {
    if (cond.op !== 'eq' && cond.op !== 'ne') throw unsupported('comparisons', target.name);
    const positive = compileRelationIn(target, [cond.value], ctx);
    return cond.op === 'eq' ? positive : not(positive);
  }
  switch (cond.op) {
    case 'eq':
      return compileEquals(target, cond.value);
    case 'ne':
      return not(compileEquals(target, cond.value));
    default:
      return compileOrdering(target, cond.op, cond.value);
  }
}
