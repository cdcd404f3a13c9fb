import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError, type Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { DataDirLock } from '../storage/data-dir-lock.ts';
import type { Database } from '../storage/database.ts';
import { exportOptionsFromConfig } from '../export/export-options.ts';
import { httpPolicyFromConfig } from '../http/http-policy.ts';
import { removeAdminFile, writeAdminFile } from './running-server.ts';
import { banner, localUrl, publicBaseUrl } from './start-banner.ts';
import { processMetrics } from './metrics-serving.ts';
import { PREPARE_ROLE, runPrimary, type Prepared } from './cluster-primary.ts';
import { SHUTDOWN_DEADLINE_MS } from './shutdown-deadline.ts';
import { giveCollectorHeadroom } from './collector-headroom.ts';


// The server's modules (app, routes, mailer, drivers) are imported where they are used, so a
// cluster primary, which serves no requests, loads none of them and stays small in memory.

/** Opens the database the config names (locking the embedded data directory). */
export async function openConfiguredDatabase(config: Config, logger?: Logger): Promise<{ db: Database; lock?: DataDirLock }> {
  const { lockDataDir } = await import('../storage/data-dir-lock.ts');
  const { openDatabase } = await import('../storage/open-database.ts');
  const lock = config.databaseUrl ? undefined : lockDataDir(resolve(config.dataDir));
  try {
    const db = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.databaseUrl ? undefined : resolve(config.dataDir, 'pglite'),
      schema: config.dbSchema,
      poolSize: config.poolSize,
      statementTimeoutMs: config.statementTimeoutMs,
      embeddedSliceMs: config.embeddedSliceMs,
      heavySlots: config.heavyQuerySlots,
      onEmbeddedUpkeep: logger && ((d) => logger.debug({ table: d.table, upkeep: d.what, ms: d.ms }, 'embedded engine table upkeep')),
    });
    return { db, lock };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

function workerCount(config: Config): number {
  if (!config.databaseUrl) return 1; // one process owns the embedded engine
  return config.workers === 0 ? availableParallelism() : config.workers;
}

/**
 * `larder serve`: migrate, then listen. With several workers (PostgreSQL only) a one-off child
 * process checks the settings and migrates (and generates keys on the first start), the primary
 * prints the banner, and the workers share the port through node:cluster.
 */
export async function serve(config: Config, logger: Logger, print: (line: string) => void): Promise<void> {
  const workers = workerCount(config);
  if (workers > 1 && cluster.isPrimary) return runPrimary(config, logger, print, workers);
  if (cluster.isWorker && process.env[PREPARE_ROLE] === '1') return prepare(config);
  await serveOne(config, logger, print);
}

/** The preparing child: settings checks, migrations and keys; reports the keys, then exits. */
async function prepare(config: Config): Promise<void> {
  await checkSettings(config);
  const { openApp } = await import('../open-app.ts');
  const { db, lock } = await openConfiguredDatabase(config);
  try {
    const { app, generatedKeys, migrated } = await openApp({ db, keys: config, masterSignWindowMs: config.masterSignWindowMs });
    const prepared: Prepared = { keys: app.keys, generatedKeys, freshDatabase: migrated.includes(1) };
    await new Promise<void>((sent) => process.send?.({ prepared }, () => sent()) ?? sent());
  } finally {
    await db.close();
    lock?.release();
  }
  process.exit(0);
}

/** Mistakes in the mail and SMS settings stop the start (exit 2) before anything listens. */
async function checkSettings(config: Config): Promise<void> {
  const [{ checkMailConfig }, { checkSmsConfig }] = await Promise.all([import('../mail/mailer.ts'), import('../sms/sms-sender.ts')]);
  checkMailConfig(config);
  checkSmsConfig(config);
  const { cloudOptionsFromConfig } = await import('../cloud/cloud-options.ts');
  cloudOptionsFromConfig(config);
  const { parseVerifierConfig } = await import('../users/auth-data-verifier-config.ts');
  parseVerifierConfig(config.authDataVerifiers);
  requestLogOn(config);
}

/** LARDER_REQUEST_LOG as a switch: on or off (the default). */
export function requestLogOn(config: Config): boolean {
  if (config.requestLog === undefined || config.requestLog === 'off') return false;
  if (config.requestLog === 'on') return true;
  throw new ConfigError(`LARDER_REQUEST_LOG must be on or off, got ${JSON.stringify(config.requestLog.slice(0, 40))}`);
}

/** One serving process: a cluster worker, or the whole server. */
async function serveOne(config: Config, logger: Logger, print: (line: string) => void): Promise<void> {
  // Request bodies' buffers must not start full collections of the whole heap (collector-headroom.ts).
  giveCollectorHeadroom();
  await checkSettings(config);
  const policy = httpPolicyFromConfig(config);
  if (config.workers > 1 && !config.databaseUrl) logger.warn('--workers needs PostgreSQL (DATABASE_URL); the embedded engine runs in one process');
  const [{ createApp }, { modulesFromConfig }, { mailerFromConfig }, { smsSenderFromConfig }, { openApp, closeApp }] = await Promise.all([
    import('../app.ts'),
    import('../modules/index.ts'),
    import('../mail/mailer.ts'),
    import('../sms/sms-sender.ts'),
    import('../open-app.ts'),
  ]);
  // Workers of a cluster call the engine their primary supervises (LARDER_ENGINE_URL).
  const engineProcess = cluster.isPrimary && config.engineDir ? await import('./engine-process.ts') : undefined;
  const engine = await engineProcess?.planEngine(config);
  const cloud = await cloudFromConfig(config, logger, engine?.url);
  const { db, lock } = await openConfiguredDatabase(config, logger);
  let draining = false;
  let metrics: import('node:http').Server | undefined;
  try {
    const { app, generatedKeys, migrated } = await openApp({
      db,
      keys: config,
      masterSignWindowMs: config.masterSignWindowMs,
      // Links in mails point at LARDER_PUBLIC_URL, else at this server; never at a request's Host
      // header, which a client controls (a reset link to another host would leak its token).
      mailer: await mailerFromConfig(config, publicBaseUrl(config), logger),
      smsSender: smsSenderFromConfig(config, logger),
      cloud,
      processes: workerCount(config),
    });
    const [{ verifiersFromConfig }, { setAuthDataVerifier }] = await Promise.all([import('../users/auth-data-verifier-config.ts'), import('../users/auth-data-verifier.ts')]);
    for (const [platform, verifier] of await verifiersFromConfig(config.authDataVerifiers, logger)) setAuthDataVerifier(app, platform, verifier);
    const server = await createApp(app, { logger, bodyLimitBytes: config.bodyLimitBytes, publicUrl: config.publicUrl, isDraining: () => draining, modules: modulesFromConfig(config), exportOptions: exportOptionsFromConfig(config), policy, metricsToken: config.metricsToken, requestLog: requestLogOn(config) });
    await server.listen({ host: config.host, port: config.port });
    metrics = await processMetrics(config, logger, cluster.isWorker);
    // On the embedded engine, tell the CLI where to send admin commands while this process holds the data.
    const adminDir = config.databaseUrl ? undefined : resolve(config.dataDir);
    if (adminDir) writeAdminFile(adminDir, { pid: process.pid, url: localUrl(config.host, server.server.address()), appId: app.keys.appId, masterKey: app.keys.masterKey });
    const refresh = () => void app.cloud?.refresh(app).catch((err: Error) => logger.warn({ reason: err.message }, 'engine: could not read its hook list'));
    const supervisor = engine ? engineProcess?.startEngine(config, engine, app.keys, logger, refresh) : undefined;
    const shutdown = async (signal: string) => {
      if (draining) return;
      draining = true;
      logger.info({ signal }, 'draining in-flight requests');
      // A stop must end: a stage that never finishes (a request or connection that does not let
      // go) is named in the log and the process exits anyway, with 1 if answers were cut off.
      let stage = 'answering in-flight requests';
      const deadline = setTimeout(() => {
        logger.error({ stage, afterMs: SHUTDOWN_DEADLINE_MS }, 'stop did not finish; exiting anyway');
        process.exit(stage === 'answering in-flight requests' ? 1 : 0);
      }, SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      // close() stops accepting, waits for in-flight requests, then closes idle keep-alive sockets.
      metrics?.close();
      await server.close();
      stage = 'stopping the cloud code engine';
      await supervisor?.stop();
      // Mails of the last requests are sent after their answers: let them go out.
      stage = 'sending the last mails';
      await app.mailer?.idle();
      app.mailer?.close();
      if (adminDir) removeAdminFile(adminDir);
      stage = 'closing the app'; // what the server did not stop: services, listeners, caches
      await closeApp(app);
      stage = 'closing the database';
      await db.close();
      lock?.release();
      logger.info('stopped cleanly');
      process.exit(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
    // Only now: a signal that arrives before its handler is installed kills the process outright,
    // and whoever reads the banner may send one at once.
    if (cluster.isPrimary) banner(config, app.keys, generatedKeys, print, 1, migrated.includes(1));
  } catch (err) {
    if (!config.databaseUrl) removeAdminFile(resolve(config.dataDir));
    metrics?.close();
    await db.close().catch(() => {});
    lock?.release();
    throw err;
  }
}

/** The app's LeanEngine connection when LARDER_ENGINE_URL is set (loaded only then). */
async function cloudFromConfig(config: Config, logger: Logger, engineUrl = config.engineUrl): Promise<import('../cloud/cloud-code.ts').CloudCode | undefined> {
  const { cloudOptionsFromConfig } = await import('../cloud/cloud-options.ts');
  const options = cloudOptionsFromConfig(config, engineUrl);
  if (!options) return undefined;
  const { CloudCode } = await import('../cloud/cloud-code.ts');
  return new CloudCode(options, logger);
}
