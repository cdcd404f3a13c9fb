import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../src/app-context.ts';
import type { CloudCode } from '../../../src/cloud/cloud-code.ts';
import { createApp } from '../../../src/app.ts';
import type { HttpPolicy } from '../../../src/http/http-policy.ts';
import { defaultModules, type ModuleOptions } from '../../../src/modules/index.ts';
import { createLogger } from '../../../src/log.ts';
import { closeApp, openApp } from '../../../src/open-app.ts';
import type { Database } from '../../../src/storage/database.ts';
import { openDatabase } from '../../../src/storage/open-database.ts';
import { TestClient } from './client.ts';

/** Fixed keys of every test app. */
export const TEST_KEYS = { appId: 'testAppId-larder', appKey: 'testAppKey', masterKey: 'testMasterKey' } as const;

/** One running test app on one engine. */
export interface Harness {
  engine: 'pglite' | 'postgres';
  app: AppContext;
  server: FastifyInstance;
  db: Database;
  client: TestClient;
  /** Listens on 127.0.0.1 (random port) for real-socket clients; returns the base URL. */
  listen(): Promise<string>;
}

/** The engines integration tests run on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function engines(): ('pglite' | 'postgres')[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/** Options of startHarness. */
export interface HarnessOptions {
  /**
   * Open a second app on the database of this harness, as another Larder process would: on
   * PostgreSQL a new connection pool on the same schema, on PGlite the same engine (one PGlite
   * is one process). Stopping the second app leaves the database to the first.
   */
  sameDatabaseAs?: Harness;
  /** HTTP protections (CORS, trusted proxies, limits) of the server; the defaults when absent. */
  policy?: HttpPolicy;
  /** Settings of the modules (e.g. the files module's backend); defaults when absent. */
  modules?: ModuleOptions;
  /** Statement timeout of the database, ms (10000 when absent). */
  statementTimeoutMs?: number;
  /**
   * Embedded engine's slice, ms (LARDER_EMBEDDED_SLICE_MS). Off (0) when absent: on a loaded
   * test machine background timers would cut ordinary slow statements; the slice has its own
   * test (embedded-engine-bounds.test.ts).
   */
  embeddedSliceMs?: number;
  /** PostgreSQL to use instead of TEST_DATABASE_URL (a private server a fault test stops). */
  databaseUrl?: string;
  /** The app's LeanEngine connection (cloud functions and hooks); none by default. */
  cloud?: CloudCode;
  /** false: no API fast path in front of Fastify (src/http/api-fast-path.ts); on by default. */
  apiFastPath?: boolean;
  /** Request body limit, bytes (20 MB when absent). */
  bodyLimitBytes?: number;
}

/** Opens a fresh app on an engine: PGlite in memory, or a new schema on PostgreSQL. */
export async function startHarness(engine: 'pglite' | 'postgres', opts: HarnessOptions = {}): Promise<Harness & { stop(): Promise<void> }> {
  const shared = opts.sameDatabaseAs;
  const schema = shared ? shared.db.schema : `t_${randomBytes(6).toString('hex')}`;
  const ownsDb = !shared || engine === 'postgres';
  const ownsSchema = !shared;
  const db = shared && engine === 'pglite' ? shared.db : await openDatabase({
    databaseUrl: engine === 'postgres' ? (opts.databaseUrl ?? process.env.TEST_DATABASE_URL) : undefined,
    schema,
    poolSize: 5,
    statementTimeoutMs: opts.statementTimeoutMs ?? 10000,
    embeddedSliceMs: opts.embeddedSliceMs ?? 0,
  });
  const { app } = await openApp({ db, keys: TEST_KEYS, masterSignWindowMs: 15 * 60 * 1000, cloud: opts.cloud });
  const server = await createApp(app, { logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), modules: defaultModules(opts.modules), policy: opts.policy, apiFastPath: opts.apiFastPath, bodyLimitBytes: opts.bodyLimitBytes });
  await server.ready();
  let listening: string | undefined;
  return {
    engine,
    app,
    server,
    db,
    client: new TestClient(server),
    async listen() {
      if (!listening) {
        await server.listen({ host: '127.0.0.1', port: 0 });
        const addr = server.server.address();
        if (!addr || typeof addr === 'string') throw new Error('no address');
        listening = `http://127.0.0.1:${addr.port}`;
      }
      return listening;
    },
    async stop() {
      await server.close();
      await closeApp(app);
      if (engine === 'postgres' && ownsSchema) await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      if (ownsDb) await db.close();
    },
  };
}

/**
 * Declares a suite once per engine. `body` receives a getter for the harness, which is ready
 * inside tests (opened in `before`, closed in `after`).
 */
export function forEachEngine(name: string, body: (h: () => Harness) => void, opts: HarnessOptions = {}): void {
  for (const engine of engines()) {
    describe(`${name} [${engine}]`, () => {
      let harness: (Harness & { stop(): Promise<void> }) | undefined;
      before(async () => {
        harness = await startHarness(engine, opts);
      });
      body(() => {
        if (!harness) throw new Error('harness not started');
        return harness;
      });
      // Registered after the body's hooks: node:test runs `after` hooks in the order they were
      // registered, and a suite's own teardown (closing an SDK's WebSocket, a mail capture) must
      // run while the server still answers, or a client's last command (a LiveQuery logout) is
      // left waiting and reconnects to a closed port after the suite ended.
      after(async () => {
        await harness?.stop();
      });
    });
  }
}
