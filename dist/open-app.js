import { loadAppKeys } from './auth/app-keys.js';
import { startInvalidationListener } from './auth/cache-invalidation.js';
import { ClassRegistry } from './schema/class-registry.js';
import { loadSettings } from './settings/app-settings.js';
import { migrate } from './storage/migrations.js';
/** Migrates the database, then loads the app's keys, settings and class catalogue. */
export async function openApp(opts) {
    const migrated = await migrate(opts.db);
    const { keys, generated } = await loadAppKeys(opts.db, opts.keys);
    const settings = await loadSettings(opts.db);
    const classes = new ClassRegistry(opts.db);
    await classes.load();
    const app = { keys, db: opts.db, classes, settings, masterSignWindowMs: opts.masterSignWindowMs, mailer: opts.mailer, smsSender: opts.smsSender };
    // Role, session, settings and class-permission changes made by other processes.
    await startInvalidationListener(app);
    return { app, generatedKeys: generated, migrated };
}
//# sourceMappingURL=open-app.js.map