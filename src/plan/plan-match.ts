/**
 * Matching one stored row against a where (LiveQuery subscriptions): the where compiles with the
 * query compiler against the class schema, so a match is the query's answer by construction;
 * `$relatedTo` owner checks use the subscriber's readers. Modules ask the planner for this rather
 * than the compiler, like every other caller.
 */
import type { AppContext } from '../app-context.ts';
import type { Condition } from '../query/ast.ts';
import { compileWhere } from '../query/sql/compile-where.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import type { Sql } from '../sql/fragment.ts';

/** The SQL condition of `condition` over the class table of `schema` (throws ApiError if it cannot compile). */
export function planMatch(app: AppContext, schema: ClassSchema, condition: Condition, readers: readonly string[] | null): Sql {
  return compileWhere(condition, { schema, schemaOf: (n) => app.classes.cached(n), readers }).condition;
}
