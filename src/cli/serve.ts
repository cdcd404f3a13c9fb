import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { createApp } from '../app.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
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
  const workers = workerCount(config);
  if (config.workers > 1 && !config.databaseUrl) logger.warn('--workers needs PostgreSQL (DATABASE_URL); the embedded engine runs in one process');
  if (workers > 1 && cluster.isPrimary) {
    const { db, lock } = await openConfiguredDatabase(config);
    const { app, generatedKeys } = await openApp({ db, keys: config, masterSignWindowMs: config.masterSignWindowMs });
    await db.close();
    lock?.release();
    banner(config, app.keys, generatedKeys, print, workers);
    for (let i = 0; i < workers; i++) cluster.fork();
    let stopping = false;
    cluster.on('exit', (w, code) => {
      if (stopping) return;
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
    const { app, generatedKeys } = await openApp({ db, keys: config, masterSignWindowMs: config.masterSignWindowMs });
    const server = await createApp(app, { logger, bodyLimitBytes: config.bodyLimitBytes, publicUrl: config.publicUrl, isDraining: () => draining });
    await server.listen({ host: config.host, port: config.port });
    if (cluster.isPrimary) banner(config, app.keys, generatedKeys, print, 1);
    const shutdown = async (signal: string) => {
      if (draining) return;
      draining = true;
      logger.info({ signal }, 'draining in-flight requests');
      // close() stops accepting, waits for in-flight requests, then closes idle keep-alive sockets.
      await server.close();
      await db.close();
      lock?.release();
      logger.info('stopped cleanly');
      process.exit(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  } catch (err) {
    await db.close().catch(() => {});
    lock?.release();
    throw err;
  }
}

function banner(config: Config, keys: { appId: string; appKey: string; masterKey: string }, generated: string[], print: (l: string) => void, workers: number): void {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = config.publicUrl ?? `http://${host}:${config.port}`;
  print(`Larder is listening on ${url}  (serverURL for the SDKs)`);
  print(`  app id:   ${keys.appId}`);
  print(`  data:     ${where(config)}`);
  print(`  workers:  ${workers}`);
  if (generated.length) {
    print('  New keys were generated and stored with the data. They are shown only this once:');
    print(`    app key:    ${keys.appKey}`);
    print(`    master key: ${keys.masterKey}`);
  }
}
