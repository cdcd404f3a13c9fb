// The separate metrics listener (LARDER_METRICS_PORT, issue 15) and one scrape covering every
// worker of `larder serve --workers N`, with the real command line as a child process.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { engines } from './harness/engines.ts';
import { dropTestSchemas, freePort, larder, stop, waitForHealth } from './harness/larder-process.ts';

const KEYS = { LARDER_APP_ID: 'metricsAppId-larder', LARDER_APP_KEY: 'metricsAppKey', LARDER_MASTER_KEY: 'metricsMasterKey' };
const SHUTDOWN_MS = 30_000;
const dirs: string[] = [];
const schemas: string[] = [];
after(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await dropTestSchemas(schemas);
});

/** The value of one sample line of a Prometheus text page (0 when absent). */
function sample(page: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of page.split('\n')) {
    const m = /^([^{ ]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** Environment of one server on `engine`: its own data dir (and schema on PostgreSQL). */
function serverEnv(engine: 'pglite' | 'postgres', port: number, metricsPort: number): Record<string, string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-metrics-'));
  dirs.push(dataDir);
  const env: Record<string, string> = { ...KEYS, LARDER_PORT: String(port), LARDER_METRICS_PORT: String(metricsPort), LARDER_DATA_DIR: dataDir };
  if (engine === 'postgres') {
    const schema = `t_metrics_${randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    Object.assign(env, { DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LARDER_DB_SCHEMA: schema });
  }
  return env;
}

const APP_HEADERS = { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': KEYS.LARDER_APP_KEY };
const MASTER_HEADERS = { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': `${KEYS.LARDER_MASTER_KEY},master` };

/** `n` class queries, each on a new connection (so a cluster spreads them over its workers). */
async function classQueries(base: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/1.1/classes/Counted?limit=1`, { headers: { ...APP_HEADERS, connection: 'close' } });
    assert.equal(res.status, 200, await res.text());
  }
}

for (const engine of engines()) {
  test(`LARDER_METRICS_PORT serves GET /metrics on its own port without credentials, and nothing else [${engine}]`, async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const l = larder(['serve'], serverEnv(engine, port, metricsPort));
    try {
      // The embedded engine's first start (initdb) can take minutes on a loaded machine.
      await l.waitFor(/Larder is listening/, 600_000);
      await waitForHealth(`http://127.0.0.1:${port}`);
      await classQueries(`http://127.0.0.1:${port}`, 3);
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
      const page = await res.text();
      assert.equal(sample(page, 'larder_http_requests_total', { family: 'classes', method: 'GET', status: '200' }), 3);
      // Only /metrics: the API is not reachable on this port.
      for (const path of ['/', '/health', '/1.1/classes/Counted', '/metrics/x']) {
        const other = await fetch(`http://127.0.0.1:${metricsPort}${path}`, { headers: APP_HEADERS });
        assert.equal(other.status, 404, path);
        await other.body?.cancel();
      }
      // The API's own /metrics still needs the master key.
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 401);
      l.child.kill('SIGTERM');
      assert.equal(await l.exited(SHUTDOWN_MS), 0);
    } finally {
      stop(l);
    }
  });
}

// --workers needs PostgreSQL: declared only when it is available, like the other cluster tests.
if (process.env.TEST_DATABASE_URL) {
  test('with --workers 2 one scrape covers both workers, on the metrics port (token) and on the API port', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const token = randomBytes(12).toString('hex');
    const l = larder(['serve', '--workers', '2'], { ...serverEnv('postgres', port, metricsPort), LARDER_METRICS_TOKEN: token });
    const base = `http://127.0.0.1:${port}`;
    try {
      await l.waitFor(/workers: +2/, 600_000);
      await waitForHealth(base);
      // On new connections the cluster hands the queries to both workers in turn: a scrape of
      // one worker alone would count about half of them.
      const N = 20;
      await classQueries(base, N);
      const count = (page: string) => sample(page, 'larder_http_requests_total', { family: 'classes', method: 'GET', status: '200' });
      // The listener asks for the token when one is set.
      assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status, 401);
      assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
      const viaListener = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(viaListener.status, 200);
      assert.equal(count(await viaListener.text()), N);
      // The API port's /metrics reaches one worker, which answers with the whole cluster's, every time.
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${base}/metrics`, { headers: { ...MASTER_HEADERS, connection: 'close' } });
        assert.equal(res.status, 200);
        const page = await res.text();
        assert.equal(count(page), N);
      }
      l.child.kill('SIGTERM');
      assert.equal(await l.exited(SHUTDOWN_MS), 0);
    } finally {
      stop(l);
    }
  });
}
