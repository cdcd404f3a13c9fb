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
  statementTimeoutMs: number;
}

/**
 * Opens PostgreSQL when a URL is given, else the embedded PGlite engine. PGlite is imported
 * only when used: loading its WASM build costs each process about 40 MB of memory.
 */
export async function openDatabase(t: DatabaseTarget): Promise<Database> {
  if (t.databaseUrl) return openPostgres({ url: t.databaseUrl, schema: t.schema, poolSize: t.poolSize, statementTimeoutMs: t.statementTimeoutMs });
  const { openPglite } = await import('./pglite.ts');
  return openPglite({ dataDir: t.dataDir, schema: t.schema });
}
