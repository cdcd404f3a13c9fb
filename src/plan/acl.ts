/**
 * The ACL clauses of class tables, used only inside the planner (and the where compiler's inner
 * queries): a read is `rperm && readers`, a write `wperm && writers`; the master key (null)
 * filters nothing. Callers outside plan/ never build these: they get them inside a plan.
 */
import { aclClause } from '../query/sql/compile-subquery.ts';
import { sql, type Sql } from '../sql/fragment.ts';

/** The read-ACL filter: `rperm && readers`, TRUE for the master key. */
export const readAcl: (readers: readonly string[] | null) => Sql = aclClause;

/**
 * The read-ACL test of a row already in memory (LiveQuery events): the same rule as `readAcl`,
 * true when the row's rperm and the readers share a principal; the master key (null) reads all.
 */
export function readsRow(rperm: readonly string[], readers: readonly string[] | null): boolean {
  if (readers === null) return true;
  for (const r of readers) if (rperm.includes(r)) return true;
  return false;
}

/** The write-ACL test: `wperm && writers`, TRUE for the master key. */
export function writeAcl(writers: readonly string[] | null): Sql {
  return writers === null ? sql`TRUE` : sql`wperm && ${writers}::text[]`;
}
