/**
 * What a class table offers a plan, read from PostgreSQL's catalogue and statistics: the
 * definition of each of its indexes (but the GIN `rperm` one every class table has) and the share
 * of its rows readable by everyone. The planner decides from it which class queries may run as
 * prepared statements (plan/reusable-shape.ts). Cached per class for ACCESS_PATHS_TTL_MS: an
 * index made or dropped by `larder index` is seen at once (forgetAccessPaths), one made outside
 * Larder within that time, and the statistics move slowly anyway.
 */
import { sql } from '../sql/fragment.ts';
import type { Database } from './database.ts';

/** How long the indexes and statistics of a class are trusted, ms. */
export const ACCESS_PATHS_TTL_MS = 30_000;

/** A table's indexes and public share (structurally plan/reusable-shape.ts's TableAccessPaths). */
export interface AccessPaths {
  readonly indexes: readonly string[];
  readonly publicShare: number | undefined;
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
  return { indexes, publicShare };
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
