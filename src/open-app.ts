import type { AppContext } from './app-context.ts';
import { AppScope } from './app-scope.ts';
import type { CloudCode } from './cloud/cloud-code.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SmsSender } from './sms/sms-sender.ts';
import { loadAppKeys, type GivenKeys } from './auth/app-keys.ts';
import { startInvalidationListener } from './auth/cache-invalidation.ts';
import { ClassRegistry } from './schema/class-registry.ts';
import { loadSettings } from './settings/app-settings.ts';
import type { Database } from './storage/database.ts';
import { migrate } from './storage/migrations.ts';
import { WriteExtensions } from './writes/write-extensions.ts';

/** What opening an app needs. */
export interface OpenAppOptions {
  db: Database;
  keys: GivenKeys;
  masterSignWindowMs: number;
  /** Outgoing mail, when an SMTP server is configured. */
  mailer?: Mailer;
  /** Sender of SMS codes, when one is configured. */
  smsSender?: SmsSender;
  /** The app's LeanEngine, when one is configured; started (hook list loaded) here. */
  cloud?: CloudCode;
  /** Processes serving the app from this database (`--workers`): AppContext.processes. */
  processes?: number;
}

/** Migrates the database, then loads the app's keys, settings and class catalogue. */
export async function openApp(opts: OpenAppOptions): Promise<{ app: AppContext; generatedKeys: string[]; migrated: number[] }> {
  const migrated = await migrate(opts.db);
  const { keys, generated } = await loadAppKeys(opts.db, opts.keys);
  const settings = await loadSettings(opts.db);
  const classes = new ClassRegistry(opts.db);
  await classes.load();
  const scope = new AppScope(settings);
  const app: AppContext = {
    keys,
    db: opts.db,
    classes,
    writes: new WriteExtensions(),
    scope,
    get settings() {
      return scope.settings;
    },
    masterSignWindowMs: opts.masterSignWindowMs,
    mailer: opts.mailer,
    smsSender: opts.smsSender,
    cloud: opts.cloud,
    processes: opts.processes,
  };
  // Role, session, settings and class-permission changes made by other processes.
  await startInvalidationListener(app);
  await opts.cloud?.start(app);
  return { app, generatedKeys: generated, migrated };
}

/**
 * Closes an app in this process: disposes its scope (services still running, listeners, caches),
 * after the HTTP server closed and before the database does. Idempotent.
 */
export async function closeApp(app: AppContext): Promise<void> {
  await app.scope.close();
}
