import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { createApp } from '../app.ts';
import { defaultModules } from '../modules/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { checkMailConfig, mailerFromConfig } from '../mail/mailer.ts';
import { checkSmsConfig, smsSenderFromConfig } from '../sms/sms-sender.ts';
import { openApp } from '../open-app.ts';
import { lockDataDir, type DataDirLock } from '../storage/data-dir-lock.ts';
import { openDatabase } from '../storage/open-database.ts';
import type { Database } from '../storage/database.ts';

function where(config: Config): string {
  if (config.databaseUrl) return `PostgreSQL ${config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')} (schema ${config.dbSchema})`;
  return `embedded PGlite in ${resolve(config.dataDir)}`;
}

/** Opens the database the config names (locking the embedded data directory). */
export async function openConfiguredDatabase(config: Config): Promise<{ db: Database; lock?: DataDirLock }> {
  const lock = config.databaseUrl ? undefined : lockDataDir(resolve(config.dataDir));
  try {
    const db = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.databaseUrl ? undefined : resolve(config.dataDir, 'pglite'),
      schema: config.dbSchema,
      poolSize: config.poolSize,
      statementTimeoutMs: config.statementTimeoutMs,
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
 * `larder serve`: migrate, then listen. With several workers (PostgreSQL only) the primary
 * migrates and prints the banner, and the workers share the port through node:cluster.
 */
export async function serve(config: Config, logger: Logger, print: (line: string) => void): Promise<void> {
  // Mistakes in the mail and SMS settings stop the start (exit 2) before any worker runs.
  checkMailConfig(config);
  checkSmsConfig(config);
  const workers = workerCount(config);
  if (config.workers > 1 && !config.databaseUrl) logger.warn('--workers needs PostgreSQL (DATABASE_URL); the embedded engine runs in one process');
  if (workers > 1 && cluster.isPrimary) {
    const { db, lock } = await openConfiguredDatabase(config);
    const { app, generatedKeys } = await openApp({ db, keys: config, masterSignWindowMs: config.masterSignWindowMs });
    await db.close();
    lock?.release();
    for (let i = 0; i < workers; i++) cluster.fork();
    let stopping = false;
    let listening = 0;
    // The banner says "listening" only once every worker does.
    cluster.on('listening', () => {
      if (++listening === workers) banner(config, app.keys, generatedKeys, print, workers);
    });
    cluster.on('exit', (w, code) => {
      if (stopping) return;
      if (listening < workers) {
        // A worker that dies before it listens (port taken, database gone) would die again:
        // stop instead of forking in a loop. The worker printed its reason.
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
        process.exitCode = 1;
        return;
      }
      logger.error({ pid: w.process.pid, code }, 'worker exited; starting a new one');
      cluster.fork();
    });
    const stop = () => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    return;
  }
  const { db, lock } = await openConfiguredDatabase(config);
  let draining = false;
  try {
    const { app, generatedKeys } = await openApp({
      db,
      keys: config,
      masterSignWindowMs: config.masterSignWindowMs,
      // Links in mails point at LARDER_PUBLIC_URL, else at this server; never at a request's Host
      // header, which a client controls (a reset link to another host would leak its token).
      mailer: mailerFromConfig(config, publicBaseUrl(config), logger),
      smsSender: smsSenderFromConfig(config, logger),
    });
    const server = await createApp(app, { logger, bodyLimitBytes: config.bodyLimitBytes, publicUrl: config.publicUrl, isDraining: () => draining, modules: defaultModules() });
    await server.listen({ host: config.host, port: config.port });
    const shutdown = async (signal: string) => {
      if (draining) return;
      draining = true;
      logger.info({ signal }, 'draining in-flight requests');
      // close() stops accepting, waits for in-flight requests, then closes idle keep-alive sockets.
      await server.close();
      // Mails of the last requests are sent after their answers: let them go out.
      await app.mailer?.idle();
      app.mailer?.close();
      await db.close();
      lock?.release();
      logger.info('stopped cleanly');
      process.exit(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
    // Only now: a signal that arrives before its handler is installed kills the process outright,
    // and whoever reads the banner may send one at once.
    if (cluster.isPrimary) banner(config, app.keys, generatedKeys, print, 1);
  } catch (err) {
    await db.close().catch(() => {});
    lock?.release();
    throw err;
  }
}

/** This server's public base URL: LARDER_PUBLIC_URL, else the listening address. */
function publicBaseUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return config.publicUrl ?? `http://${host}:${config.port}`;
}

function banner(config: Config, keys: { appId: string; appKey: string; masterKey: string }, generated: string[], print: (l: string) => void, workers: number): void {
  print(`Larder is listening on ${publicBaseUrl(config)}  (serverURL for the SDKs)`);
  print(`  app id:   ${keys.appId}`);
  print(`  data:     ${where(config)}`);
  print(`  workers:  ${workers}`);
  if (generated.length) {
    print('  New keys were generated and stored with the data. They are shown only this once:');
    print(`    app key:    ${keys.appKey}`);
    print(`    master key: ${keys.masterKey}`);
  }
}
