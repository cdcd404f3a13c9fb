/**
 * Whether a prepared page statement reads a narrow range of its one index (issue 16): its
 * condition bounds a Number field that the table's one usable index starts with, and the
 * statistics of that index put the range under NARROW_SHARE of the rows. Such statements run on
 * connections planned with a low random_page_cost (storage/narrow-reads.ts), where their generic
 * plan reads the index in order: cheaper than the bitmap plan for a few rows, and 1.2-2.2 times
 * dearer for a quarter of the class or more (docs/benchmarks.md). The generic plan is made once
 * for every value, so the decision is made per request, from the values, here; anything it cannot
 * tell (no statistics, another kind of condition on the field, a field ordered by its own index)
 * is not narrow and keeps the server's costs, as before.
 */
import type { Condition } from '../query/ast.ts';
import { fieldOf, type ClassSchema } from '../model/class-schema.ts';

/** PostgreSQL's statistics of a numeric index column (pg_stats). */
export interface NumberColumnStats {
  /** histogram_bounds: equal-count buckets of the values other than the most common ones. */
  readonly bounds: readonly number[];
  /** most_common_vals and most_common_freqs. */
  readonly common: readonly number[];
  readonly commonFreqs: readonly number[];
  readonly nullFrac: number;
}

/** What the table's statistics say of its indexes that start with a number. */
export interface IndexNumberStats {
  /** By `pg_get_indexdef`: the statistics of the first column when it is numeric; indexes without statistics are absent. */
  readonly numberStats: ReadonlyMap<string, NumberColumnStats>;
}

/** The Number field an index made by `larder index add` starts with (pg_get_indexdef's form). */
const FIRST_NUMBER_FIELD = /USING btree \(\(\(\(data ->> '([^']+)'::text\)\)::numeric\)/;

/** Largest estimated share of the rows that counts as narrow (at a tenth the two plans cost the same). */
export const NARROW_SHARE = 0.02;

/** The bounds a condition puts on a field, each possibly open. */
export interface NumberRange {
  readonly lo?: number;
  readonly hi?: number;
}

/**
 * The range of a Number field set by the condition's top-level `$gt`/`$gte`/`$lt`/`$lte`, or
 * undefined when the field has none, or appears in anything else (another operator, an `$or`).
 */
export function rangeOf(cond: Condition, field: string): NumberRange | undefined {
  const parts = cond.kind === 'and' ? cond.conditions : [cond];
  let lo: number | undefined;
  let hi: number | undefined;
  for (const c of parts) {
    if (!mentions(c, field)) continue;
    if (c.kind !== 'compare' || c.field.length !== 1 || c.value.type !== 'number') return undefined;
    const v = c.value.value;
    if (c.op === 'gt' || c.op === 'gte') lo = lo === undefined ? v : Math.max(lo, v);
    else if (c.op === 'lt' || c.op === 'lte') hi = hi === undefined ? v : Math.min(hi, v);
    else return undefined;
  }
  return lo === undefined && hi === undefined ? undefined : { lo, hi };
}

function mentions(cond: Condition, field: string): boolean {
  switch (cond.kind) {
    case 'and':
    case 'or':
      return cond.conditions.some((c) => mentions(c, field));
    default:
      return 'field' in cond && cond.field[0] === field;
  }
}

/** Share of a histogram's values below x, interpolated within its bucket (as PostgreSQL does). */
function below(bounds: readonly number[], x: number): number {
  const n = bounds.length - 1;
  if (x <= bounds[0]) return 0;
  if (x >= bounds[n]) return 1;
  let i = 0;
  while (bounds[i + 1] < x) i++;
  const width = bounds[i + 1] - bounds[i];
  return (i + (width > 0 ? (x - bounds[i]) / width : 0)) / n;
}

/** The estimated share of the rows in the range; undefined without a histogram. */
export function rangeShare(range: NumberRange, stats: NumberColumnStats): number | undefined {
  if (stats.bounds.length < 2) return undefined;
  const inRange = (v: number) => (range.lo === undefined || v >= range.lo) && (range.hi === undefined || v <= range.hi);
  let common = 0;
  let commonIn = 0;
  stats.common.forEach((v, i) => {
    common += stats.commonFreqs[i] ?? 0;
    if (inRange(v)) commonIn += stats.commonFreqs[i] ?? 0;
  });
  const hist = (range.hi === undefined ? 1 : below(stats.bounds, range.hi)) - (range.lo === undefined ? 0 : below(stats.bounds, range.lo));
  return commonIn + Math.max(0, 1 - stats.nullFrac - common) * Math.max(0, hist);
}

/**
 * Whether the page statement of a query already judged reusable (reusable-shape.ts) reads a
 * narrow range of the table's one index. `order` is the request's `order` parameter.
 */
export function narrowRange(cond: Condition, order: string | undefined, schema: ClassSchema, table: IndexNumberStats): boolean {
  const first = order?.split(',')[0]?.trim().replace(/^-/, '') || 'createdAt';
  for (const [definition, stats] of table.numberStats) {
    const field = FIRST_NUMBER_FIELD.exec(definition)?.[1];
    // An index that the order reads too is read in order at either cost.
    if (field === undefined || field === first || fieldOf(schema, field)?.type !== 'Number') continue;
    const range = rangeOf(cond, field);
    if (!range) continue;
    const share = rangeShare(range, stats);
    return share !== undefined && share <= NARROW_SHARE;
  }
  return false;
}
