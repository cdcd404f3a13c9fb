/**
 * The start-up warning for an easy mistake: pointing Larder at PostgreSQL (DATABASE_URL) when the
 * app lives in the embedded engine's data dir. Without it the server silently starts a second,
 * empty app with new keys. Said when the PostgreSQL database was created by this start (its first
 * migration ran now) and `<data dir>/pglite` holds an embedded database.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';

/** The warning lines, or none. `freshDatabase`: this start ran the first migration. */
export function orphanEmbeddedAppWarning(config: Pick<Config, 'databaseUrl' | 'dataDir'>, freshDatabase: boolean): string[] {
  if (!config.databaseUrl || !freshDatabase) return [];
  const dir = resolve(config.dataDir);
  if (!existsSync(resolve(dir, 'pglite', 'PG_VERSION'))) return [];
  return [
    `  WARNING: this PostgreSQL database is new (empty until now), but ${dir} holds an app on the embedded engine.`,
    '  This server is a NEW app with new keys: the embedded app\'s data, users and keys are not here.',
    '  To move that app to PostgreSQL: stop this server, drop the schema it just created (it holds only',
    '  this new, empty app) or pick another LARDER_DB_SCHEMA, then run',
    '    larder move --to <this DATABASE_URL> [--to-schema <schema>]   (needs an empty schema; docs/backup.md)',
  ];
}
