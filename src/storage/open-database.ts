import type { Database } from './database.ts';
import { openPostgres } from './postgres.ts';
import { withHeavyLane } from './heavy-lane.ts';
import type { UpkeepDone } from './pglite-upkeep.ts';

/** How to reach the database. */
export interface DatabaseTarget {
  /** PostgreSQL URL; when absent the embedded engine is used. */
  databaseUrl?: string;
  /** Embedded data directory; undefined = in memory (tests). */
  dataDir?: string;
  schema: string;
  poolSize: number;
  /** Longest a statement may run, ms, on either engine (0: unbounded, tools only). */
  statementTimeoutMs: number;
  /** Embedded engine: longest one statement may hold it while other work waits, ms (default 1000). */
  embeddedSliceMs?: number;
  /** Class queries (find, count) that may run at once (heavy-lane.ts); default heavySlotsDefault. */
  heavySlots?: number;
  /** Embedded engine: told about each table's ANALYZE/VACUUM (pglite-upkeep.ts), for the debug log. */
  onEmbeddedUpkeep?: (done: UpkeepDone) => void;
}

/**
 * LARDER_HEAVY_QUERY_SLOTS when not configured: half the pool on PostgreSQL, so the other half
 * always serves cheap statements; one on the embedded engine, whose one connection runs one
 * statement at a time anyway (a second slot would only queue ahead of the cheap requests).
 */
export function heavySlotsDefault(t: Pick<DatabaseTarget, 'databaseUrl' | 'poolSize'>): number {
  return t.databaseUrl ? Math.max(1, Math.floor(t.poolSize / 2)) : 1;
}

/** LARDER_EMBEDDED_SLICE_MS when not configured. */
export const DEFAULT_EMBEDDED_SLICE_MS = 1000;

/**
 * Opens PostgreSQL when a URL is given, else the embedded PGlite engine. PGlite is imported
 * only when used: loading its WASM build costs each process about 40 MB of memory.
 */
export async function openDatabase(t: DatabaseTarget): Promise<Database> {
  const slots = t.heavySlots || heavySlotsDefault(t);
  if (t.databaseUrl) return withHeavyLane(await openPostgres({ url: t.databaseUrl, schema: t.schema, poolSize: t.poolSize, statementTimeoutMs: t.statementTimeoutMs, narrowPoolSize: slots }), slots, t.statementTimeoutMs);
  const { openPglite } = await import('./pglite.ts');
  return withHeavyLane(await openPglite({ dataDir: t.dataDir, schema: t.schema, statementTimeoutMs: t.statementTimeoutMs, sliceMs: t.embeddedSliceMs ?? DEFAULT_EMBEDDED_SLICE_MS, onUpkeep: t.onEmbeddedUpkeep }), slots, t.statementTimeoutMs);
}
