import type { Database } from './database.ts';
import { openPostgres } from './postgres.ts';

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
}

/** LARDER_EMBEDDED_SLICE_MS when not configured. */
export const DEFAULT_EMBEDDED_SLICE_MS = 1000;

/**
 * Opens PostgreSQL when a URL is given, else the embedded PGlite engine. PGlite is imported
 * only when used: loading its WASM build costs each process about 40 MB of memory.
 */
export async function openDatabase(t: DatabaseTarget): Promise<Database> {
  if (t.databaseUrl) return openPostgres({ url: t.databaseUrl, schema: t.schema, poolSize: t.poolSize, statementTimeoutMs: t.statementTimeoutMs });
  const { openPglite } = await import('./pglite.ts');
  return openPglite({ dataDir: t.dataDir, schema: t.schema, statementTimeoutMs: t.statementTimeoutMs, sliceMs: t.embeddedSliceMs ?? DEFAULT_EMBEDDED_SLICE_MS });
}
