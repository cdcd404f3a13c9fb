/**
 * Statements known to read a small share of their table through one index (issue 16): the
 * prepared page statement of a range whose width the statistics put under NARROW_SHARE
 * (plan/narrow-range.ts). On PostgreSQL they run on connections planned with
 * NARROW_RANDOM_PAGE_COST instead of the server's random_page_cost: their generic plan then reads
 * the index in order (and probes a joined class's primary key) instead of building a bitmap,
 * which costs PostgreSQL about a tenth less CPU per statement on data in memory. Every other
 * statement keeps the server's setting, because a generic plan is made once for every value: with
 * the low cost the same prepared range read a wide range by the index too, 1.2-2.2 times slower
 * than the bitmap plan from a quarter of the class on (docs/benchmarks.md, "random_page_cost for
 * Larder's sessions"). The embedded engine ignores the mark (one connection, its default costs).
 */
import type { Sql } from '../sql/fragment.ts';

/** random_page_cost of the connections that run narrow reads (the usual value for data in memory or on SSDs). */
export const NARROW_RANDOM_PAGE_COST = 1.1;

const marked = new WeakSet<Sql>();

/** Marks a statement as a narrow read. */
export function narrowRead(statement: Sql): Sql {
  marked.add(statement);
  return statement;
}

/** Whether a statement was marked by narrowRead(). */
export function isNarrowRead(statement: Sql): boolean {
  return marked.has(statement);
}
