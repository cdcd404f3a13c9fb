/**
 * State shared by the parts of the where parser: counters for the whole where (so limits hold
 * across `$or` branches and inner queries) and the scope of the condition being parsed. The
 * recursive entry point is passed in as a function so the parser files do not import each other
 * in a cycle.
 */
import { ApiError } from '../errors/api-error.ts';
import type { Condition } from './ast.ts';
import { MAX_CONDITIONS, MAX_SUBQUERIES, MAX_WHERE_DEPTH, tooComplex } from './limits.ts';

/** Counters over one whole where, inner queries included. */
export interface ParseState {
  conditions: number;
  subqueries: number;
}

/** Where in the where tree the parser is. */
export interface ParseScope {
  /** Nesting of `$or`/`$and` groups, array wheres and inner queries. */
  readonly depth: number;
  /** Inside `$or`/`$and`, where `$nearSphere` is not allowed. */
  readonly inCompound: boolean;
}

/** What the operator parsers need from the where parser. */
export interface ParseContext {
  readonly state: ParseState;
  readonly scope: ParseScope;
  /** Parses a nested where (an `$or` branch or an inner query's where) in the given scope. */
  parseNested(where: unknown, scope: ParseScope): Condition;
}

/** A scope one level deeper; errors when MAX_WHERE_DEPTH is passed. */
export function deeper(scope: ParseScope, inCompound: boolean): ParseScope {
  const depth = scope.depth + 1;
  if (depth > MAX_WHERE_DEPTH) tooComplex('levels of nested $or/$and groups and inner queries', MAX_WHERE_DEPTH);
  return { depth, inCompound };
}

/** Counts one leaf condition against MAX_CONDITIONS. */
export function countCondition(state: ParseState): void {
  state.conditions += 1;
  if (state.conditions > MAX_CONDITIONS) tooComplex('conditions', MAX_CONDITIONS);
}

/** Counts one inner query against MAX_SUBQUERIES. */
export function countSubquery(state: ParseState): void {
  state.subqueries += 1;
  if (state.subqueries > MAX_SUBQUERIES) tooComplex('inner queries ($inQuery, $select, ...)', MAX_SUBQUERIES);
}

/** Error 102 with a message. */
export function invalidQuery(message: string): never {
  throw new ApiError('invalidQuery', message);
}
