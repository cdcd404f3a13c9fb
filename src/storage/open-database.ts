import type { Database } from './database.ts';
import { openPglite } from './pglite.ts';
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

/** Opens PostgreSQL when a URL is given, else the embedded PGlite engine. */
export function openDatabase(t: DatabaseTarget): Promise<Database> {
  if (t.databaseUrl) return openPostgres({ url: t.databaseUrl, schema: t.schema, poolSize: t.poolSize, statementTimeoutMs: t.statementTimeoutMs });
  return openPglite({ dataDir: t.dataDir, schema: t.schema });
}
