/**
 * What a class table offers a plan, read from PostgreSQL's catalogue and statistics: the
 * definition of each of its indexes (but the GIN `rperm` one every class table has) and the share
 * of its rows readable by everyone, and the statistics of its indexes that start with a number. The
 * planner decides from it which class queries may run as prepared statements
 * (plan/reusable-shape.ts), and which of those read a narrow range (plan/narrow-range.ts). Cached per class for ACCESS_PATHS_TTL_MS: an
 * index made or dropped by `larder index` is seen at once (forgetAccessPaths), one made outside
 * Larder within that time, and the statistics move slowly anyway.
 */
import { sql } from '../sql/fragment.ts';
import type { Database } from './database.ts';

/** How long the indexes and statistics of a class are trusted, ms. */
export const ACCESS_PATHS_TTL_MS = 30_000;

/** A numeric index column's statistics (structurally plan/narrow-range.ts's NumberColumnStats). */
export interface NumberStats {
  readonly bounds: readonly number[];
  readonly common: readonly number[];
  readonly commonFreqs: readonly number[];
  readonly nullFrac: number;
}

/** A table's indexes and public share (plan/reusable-shape.ts's TableAccessPaths) and numeric index statistics (plan/narrow-range.ts). */
export interface AccessPaths {
  readonly indexes: readonly string[];
  readonly publicShare: number | undefined;
  /** By index definition: the statistics of its first column when that is numeric (a Number field's expression). */
  readonly numberStats: ReadonlyMap<string, NumberStats>;
}

interface IndexRow {
  def: string;
  bounds: number[] | null;
  common: number[] | null;
  freqs: number[] | null;
  null_frac: number | null;
}

interface Cached {
  readonly until: number;
  readonly paths: Promise<AccessPaths>;
}

const caches = new WeakMap<object, Map<string, Cached>>();

function cacheOf(db: object): Map<string, Cached> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

async function load(db: Database, className: string): Promise<AccessPaths> {
  // `analyzed`: whether the statistics hold rperm at all (never analyzed: the share is unknown);
  // `share`: the frequency of '*' among rperm's most common elements (absent: a rare one).
  const [row] = await db.query<{ indexes: string[]; analyzed: boolean; share: number | null }>(sql`
    SELECT ARRAY(
        SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
        JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = ${db.schema} AND t.relname = ${className}
      ) AS indexes,
      s.tablename IS NOT NULL AS analyzed,
      (s.most_common_elem_freqs[array_position(s.most_common_elems::text::text[], '*')])::float8 AS share
    FROM (SELECT 1) one
    LEFT JOIN pg_stats s ON s.schemaname = ${db.schema} AND s.tablename = ${className} AND s.attname = 'rperm'`);
  const indexes = (row?.indexes ?? []).filter((def) => !/USING gin \(rperm\)/.test(def));
  const publicShare = row?.analyzed ? (row.share ?? 0) : undefined;
  return { indexes, publicShare, numberStats: await numberStatsOf(db, className) };
}

/**
 * The statistics ANALYZE keeps for the first column of each index whose first column is a numeric
 * expression (PostgreSQL files them under the index's name; plan/narrow-range.ts reads them).
 */
async function numberStatsOf(db: Database, className: string): Promise<Map<string, NumberStats>> {
  // A value past float8's range (a numeric of 400 digits) fails the cast: no statistics then, the
  // same as an index never analyzed (nothing counts as narrow).
  const rows = await db.query<IndexRow>(sql`
    SELECT pg_get_indexdef(i.indexrelid) AS def,
      s.histogram_bounds::text::float8[] AS bounds, s.most_common_vals::text::float8[] AS common,
      s.most_common_freqs::float8[] AS freqs, s.null_frac::float8 AS null_frac
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_class ic ON ic.oid = i.indexrelid
    JOIN pg_attribute a ON a.attrelid = i.indexrelid AND a.attnum = 1 AND a.atttypid = 'numeric'::regtype
    JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = ic.relname AND s.attname = a.attname
    WHERE n.nspname = ${db.schema} AND t.relname = ${className} AND i.indexprs IS NOT NULL`).catch(() => [] as IndexRow[]);
  const out = new Map<string, NumberStats>();
  for (const r of rows) out.set(r.def, { bounds: r.bounds ?? [], common: r.common ?? [], commonFreqs: r.freqs ?? [], nullFrac: r.null_frac ?? 0 });
  return out;
}

/** The indexes and public share of a class table, cached (see the file comment). */
export function accessPaths(db: Database, className: string, now: number = Date.now()): Promise<AccessPaths> {
  const cache = cacheOf(db);
  const hit = cache.get(className);
  if (hit && hit.until > now) return hit.paths;
  const paths = load(db, className);
  cache.set(className, { until: now + ACCESS_PATHS_TTL_MS, paths });
  // A failed read is not kept: the next query asks again.
  paths.catch(() => cache.get(className)?.paths === paths && cache.delete(className));
  return paths;
}

/** Drops a class's cached access paths (after `larder index add` or `drop`). */
export function forgetAccessPaths(db: object, className: string): void {
  caches.get(db)?.delete(className);
}
