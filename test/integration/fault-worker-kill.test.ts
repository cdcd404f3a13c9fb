// Fault test (issue 12): a serving process is SIGKILLed while clients send batches of creates.
// A batch of creates of one class is one multi-row insert, so each batch is either all there or
// not there at all (never partly visible); every batch that was acknowledged (200) is there;
// the server serves again (PostgreSQL: the cluster primary forks a new worker; embedded: the
// process started again on the same data directory recovers it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { childPids } from '../../bench/server-process.ts';
import { sql } from '../../src/sql/fragment.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { engines } from './harness/engines.ts';
import { freePort, larder, stop, waitForHealth, type Larder } from './harness/larder-process.ts';

const KEYS = { LARDER_APP_ID: 'faultAppId-larder', LARDER_APP_KEY: 'faultAppKey', LARDER_MASTER_KEY: 'faultMasterKey' };
const ITEMS = 20;

/** The cluster workers of a primary: its children running Larder (not tsx's esbuild service). */
function workerPids(primary: number): number[] {
  return childPids(primary).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('main.ts');
    } catch {
      return false;
    }
  });
}

for (const engine of engines()) {
  test(`SIGKILL of a serving process during batches of creates: no partial batch, no lost acknowledged batch [${engine}]`, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-kill-'));
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Rate limits off: four writers sending 20-item batches are the load, not an attack.
    // Info level: a failure's message then shows which workers listened, died and were replaced.
    const env: Record<string, string> = { ...KEYS, LARDER_PORT: String(port), LARDER_DATA_DIR: dataDir, LARDER_RATE_LIMIT_PER_IP: '0', LARDER_RATE_LIMIT_PER_SESSION: '0', LARDER_LOG_LEVEL: 'info' };
    if (engine === 'postgres') Object.assign(env, { DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LARDER_DB_SCHEMA: schema });
    const args = engine === 'postgres' ? ['serve', '--workers', '2'] : ['serve'];
    let server: Larder = larder(args, env);
    let stopping = false;
    /** Waits for `done` (at most 120 s; at once an error if the server exited), with the server's output on failure. */
    const until = async (done: () => boolean, what: string) => {
      for (const deadline = Date.now() + 120_000; !done(); await new Promise((r) => setTimeout(r, 100))) {
        const exited = server.child.exitCode ?? server.child.signalCode;
        if (exited !== null || Date.now() > deadline) throw new Error(`${exited !== null ? `larder exited (${exited})` : 'timed out'} waiting for ${what}\nstdout:\n${server.stdout()}\nstderr:\n${server.stderr()}`);
      }
    };
    try {
      await waitForHealth(base, server);
      const acknowledged: string[] = [];
      let sent = 0;
      const headers = { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': KEYS.LARDER_APP_KEY, 'content-type': 'application/json' };
      const writer = async (w: number) => {
        for (let n = 0; !stopping; n++) {
          const tag = `w${w}-${n}`;
          sent++;
          const requests = Array.from({ length: ITEMS }, (_, i) => ({ method: 'POST', path: '/1.1/classes/Killed', body: { tag, i } }));
          try {
            const res = await fetch(`${base}/1.1/batch`, { method: 'POST', headers, body: JSON.stringify({ requests }), signal: AbortSignal.timeout(30_000) });
            const body = (await res.json()) as { success?: unknown }[];
            if (res.status === 200 && body.every((r) => r.success)) acknowledged.push(tag);
          } catch {
            // The process died under this request (or is restarting): its outcome is unknown.
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      };
      const writers = Array.from({ length: 4 }, (_, w) => writer(w));
      await until(() => acknowledged.length >= 8, '8 acknowledged batches');
      const victim = engine === 'postgres' ? workerPids(server.child.pid as number)[0] : server.child.pid;
      assert.ok(victim, 'a process to kill');
      process.kill(victim, 'SIGKILL');
      if (engine === 'pglite') {
        // One process: it is started again on the same data directory, as a supervisor would.
        await server.exited(30_000);
        server = larder(args, env);
      }
      await waitForHealth(base, server);
      if (engine === 'postgres') {
        // The primary forked a replacement: two workers again, the killed one not among them.
        const now = () => workerPids(server.child.pid as number).filter((pid) => pid !== victim);
        await until(() => now().length === 2, 'a replacement worker');
      }
      const afterRecovery = acknowledged.length;
      await until(() => acknowledged.length >= afterRecovery + 4, '4 more acknowledged batches after the kill');
      stopping = true;
      await Promise.all(writers);
      server.child.kill('SIGTERM');
      await server.exited(60_000);

      // Read what is stored straight from the database, with the server stopped.
      const db = await openDatabase({
        databaseUrl: engine === 'postgres' ? process.env.TEST_DATABASE_URL : undefined,
        dataDir: engine === 'pglite' ? join(dataDir, 'pglite') : undefined,
        schema: engine === 'postgres' ? schema : 'larder',
        poolSize: 1,
        statementTimeoutMs: 0,
      });
      try {
        const rows = await db.query<{ tag: string; n: number }>(sql`SELECT data->>'tag' AS tag, count(*)::int AS n FROM "Killed" GROUP BY 1`);
        const stored = new Map(rows.map((r) => [r.tag, r.n]));
        const partial = rows.filter((r) => r.n !== ITEMS);
        assert.deepEqual(partial, [], 'every stored batch is whole');
        assert.deepEqual(acknowledged.filter((tag) => stored.get(tag) !== ITEMS), [], 'every acknowledged batch is stored');
        t.diagnostic(`${engine}: ${sent} batches sent, ${acknowledged.length} acknowledged, ${stored.size} stored whole, killed pid ${victim}`);
      } finally {
        if (engine === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await db.close();
      }
    } finally {
      stopping = true;
      stop(server);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
