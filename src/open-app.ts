import type { AppContext } from './app-context.ts';
import { loadAppKeys, type GivenKeys } from './auth/app-keys.ts';
import { ClassRegistry } from './schema/class-registry.ts';
import { loadSettings } from './settings/app-settings.ts';
import type { Database } from './storage/database.ts';
import { migrate } from './storage/migrations.ts';

/** What opening an app needs. */
export interface OpenAppOptions {
  db: Database;
  keys: GivenKeys;
  masterSignWindowMs: number;
}

/** Migrates the database, then loads the app's keys, settings and class catalogue. */
export async function openApp(opts: OpenAppOptions): Promise<{ app: AppContext; generatedKeys: string[]; migrated: number[] }> {
  const migrated = await migrate(opts.db);
  const { keys, generated } = await loadAppKeys(opts.db, opts.keys);
  const settings = await loadSettings(opts.db);
  const classes = new ClassRegistry(opts.db);
  await classes.load();
  return {
    app: { keys, db: opts.db, classes, settings, masterSignWindowMs: opts.masterSignWindowMs },
    generatedKeys: generated,
    migrated,
  };
}
