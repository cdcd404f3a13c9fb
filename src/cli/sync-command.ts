import { loadConfig } from '../config.ts';
import { ClassRegistry } from '../schema/class-registry.ts';
import { parseSyncArgs, SYNC_USAGE } from './sync-args.ts';
import { SyncRun } from '../migration/sync-run.ts';
import { SourceClient, SourceError } from '../migration/sync-source.ts';
import { CommandError } from './command-error.ts';
import { withCommandDatabase } from './command-database.ts';

/**
 * `larder sync`: copies a running LeanCloud app (or another Larder) into the configured
 * database over the source's REST API, then keeps it up to date until SIGINT/SIGTERM. main
 * dispatches here before its own flag parsing, because --app-id/--app-key/--master-key name
 * the SOURCE app here and --once takes no value. A source problem (bad keys, not the API) is a
 * CommandError: main prints it and exits 2.
 */
export async function syncCommand(argv: readonly string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<void> {
  const args = parseSyncArgs(argv, env);
  if (args.help) {
    print(SYNC_USAGE);
    return;
  }
  const config = loadConfig(env, args.configFlags);
  const stamp = (line: string) => print(`${new Date().toISOString()} ${line}`);
  const client = new SourceClient({
    baseUrl: args.from,
    appId: args.appId,
    appKey: args.appKey,
    masterKey: args.masterKey,
    auth: args.auth,
    onRetry: (r) => stamp(`retrying ${r.path} in ${r.delayMs} ms (attempt ${r.attempt}: ${r.reason})`),
  });
  // Few connections: the sync writes one page at a time (plus a few relation transactions).
  await withCommandDatabase({ ...config, poolSize: Math.min(config.poolSize, 4) }, async (db) => {
    const run = new SyncRun({
      client,
      target: { db, classes: new ClassRegistry(db) },
      key: { source: client.baseUrl, appId: args.appId },
      classes: args.classes,
      once: args.once,
      intervalMs: args.intervalS * 1000,
      overlapMs: args.overlapS * 1000,
      reconcileMs: args.reconcileS * 1000,
      log: stamp,
      pageSize: args.pageSize,
    });
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      // A second signal means "now": the state saved after the last page is where a rerun resumes.
      if (++signals > 1) process.exit(130);
      stamp(`${sig}: stopping after the current page (send it again to stop at once)`);
      run.stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const t = await run.run();
      stamp(`sync ${run.stopping ? 'stopped' : 'finished'}: ${t.rounds} rounds, ${t.received} objects read, ${t.written} written, ${t.skipped} skipped, ${t.deleted} deleted, ${t.requests} GET requests to the source`);
    } catch (err) {
      if (err instanceof SourceError) throw new CommandError(`sync: ${err.message}`);
      throw err;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
