// Export jobs survive their runner: a real `larder` process killed (SIGKILL) in the middle of a
// job hands it to the next process, which resumes it from its checkpoint and finishes it with
// every row exactly once; in-process, two runners on one database never run the same job, and
// a runner that loses its lease stops writing and the job is finished by another.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { workerOf } from '../../src/export/export-worker.ts';
import { sql } from '../../src/sql/fragment.ts';
import { createClassTable } from '../../src/storage/class-table.ts';
import { engines, forEachEngine, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';
import { downloadArchive, readJsonl, untar, waitJob } from './harness/export-archive.ts';
import { freePort, larder, stop, waitForHealth, type Larder } from './harness/larder-process.ts';

const ROWS = 3500;

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master`, 'content-type': 'application/json' };
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Creates `count` objects of `className` through /1.1/batch. */
async function seed(base: string, className: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    const requests = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({ method: 'POST', path: `/1.1/classes/${className}`, body: { n: start + i } }));
    const res = await call(base, 'POST', '/1.1/batch', { requests });
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  }
}

for (const engine of engines()) {
  describe(`export: a job survives a killed process [${engine}]`, () => {
    const exportDir = mkdtempSync(join(tmpdir(), 'larder-export-restart-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-export-data-'));
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const dbEnv: Record<string, string> = engine === 'postgres'
      ? { DATABASE_URL: process.env.TEST_DATABASE_URL as string, LARDER_DB_SCHEMA: schema, LARDER_POOL_SIZE: '3' }
      : { LARDER_DATA_DIR: dataDir };
    const env = { ...dbEnv, LARDER_APP_ID: TEST_KEYS.appId, LARDER_APP_KEY: TEST_KEYS.appKey, LARDER_MASTER_KEY: TEST_KEYS.masterKey, LARDER_HOST: '127.0.0.1', LARDER_EXPORT_DIR: exportDir };
    const procs: Larder[] = [];

    after(async () => {
      procs.forEach(stop);
      if (engine === 'postgres') {
        const { openDatabase } = await import('../../src/storage/open-database.ts');
        const db = await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, schema, poolSize: 1, statementTimeoutMs: 10000 });
        await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await db.close();
      }
      rmSync(exportDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('SIGKILL mid-job; the restarted process resumes it and it ends done with every row once', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      // Slow pages (one page of 1000 objects per 1.5 s) so that the kill lands mid-job.
      const first = larder([], { ...env, LARDER_PORT: String(port), LARDER_EXPORT_PAGE_DELAY_MS: '1500' });
      procs.push(first);
      await waitForHealth(base);
      await seed(base, 'Big', ROWS);
      const started = await call(base, 'POST', '/1.1/exportData', { classes: 'Big' });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const id: string = started.body.id;
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal((await call(base, 'GET', `/1.1/exportData/${id}`)).body.status, 'running');
      first.child.kill('SIGKILL');
      await first.exited();

      const second = larder([], { ...env, LARDER_PORT: String(port), LARDER_LOG_LEVEL: 'info' });
      procs.push(second);
      await waitForHealth(base);
      let status: any;
      for (let i = 0; i < 600; i++) {
        status = (await call(base, 'GET', `/1.1/exportData/${id}`)).body;
        if (status.status !== 'running') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status.status, 'done', JSON.stringify(status));
      // Taken over at once (the first runner's pid is dead), as its second attempt.
      assert.match(second.stdout(), new RegExp(`"jobId":"${id}","attempt":2,`));
      const res = await fetch(status.download_url);
      assert.equal(res.status, 200);
      const entries = await untar(Buffer.from(await res.arrayBuffer()));
      const { rows } = readJsonl(entries.get('Big.0.jsonl') as string);
      assert.equal(rows.length, ROWS);
      assert.equal(new Set(rows.map((r) => r.objectId)).size, ROWS, 'no row twice');
      assert.deepEqual(rows.map((r) => r.n).sort((a, b) => a - b), Array.from({ length: ROWS }, (_, i) => i));
      stop(second);
    });
  });
}

forEachEngine('export: leases between runners', (h) => {
  let other: (Harness & { stop(): Promise<void> }) | undefined;
  before(async () => {
    other = await startHarness(h().engine, { sameDatabaseAs: h() });
    for (const ddl of createClassTable('LeaseBig')) await h().db.query(ddl);
    await h().db.query(sql`INSERT INTO "LeaseBig" SELECT lpad(g::text, 8, '0'), now(), now(), NULL, '{*}', '{*}', jsonb_build_object('n', g) FROM generate_series(1, 3000) g`);
    await h().db.query(sql`INSERT INTO _larder_classes (name, fields) VALUES ('LeaseBig', '{"n":{"type":"Number"}}') ON CONFLICT DO NOTHING`);
  });
  after(async () => {
    await other?.stop();
  });

  test('two runners on one database: the job runs once; a runner that loses its lease stops and another finishes it', async () => {
    const a = workerOf(h().app);
    const b = workerOf((other as Harness).app);
    assert.ok(a && b && a !== b);
    // One export directory, as processes sharing LARDER_EXPORT_DIR have.
    const bDir = b.opts.dir;
    b.opts.dir = a.opts.dir;
    a.opts.pageDelayMs = 400;
    b.opts.pageDelayMs = 400;
    try {
      const started = await h().client.post('/1.1/exportData', { classes: 'LeaseBig' }, { master: true });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const id: string = started.body.id;
      // Wait for the first checkpoint, then take the lease away as if the runner had stalled
      // past its lease and someone else had claimed the job meanwhile.
      for (let i = 0; i < 200; i++) {
        const [row] = await h().db.query<{ progress: any }>(sql`SELECT progress FROM _larder_export_jobs WHERE id = ${id}`);
        if (Object.keys(row.progress.files ?? {}).length > 1) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await h().db.query(sql`UPDATE _larder_export_jobs SET lease_owner = 'elsewhere:1:x', lease_until = now() - interval '1 second' WHERE id = ${id}`);
      a.wake();
      b.wake();
      const done = await waitJob(h(), id);
      assert.equal(done.status, 'done');
      const [row] = await h().db.query<{ attempts: number }>(sql`SELECT attempts FROM _larder_export_jobs WHERE id = ${id}`);
      assert.equal(row.attempts, 2, 'claimed once at the start and once after the lease was lost');
      const { entries } = await downloadArchive(h(), done.download_url as string);
      const { rows } = readJsonl(entries.get('LeaseBig.0.jsonl') as string);
      assert.equal(rows.length, 3000);
      assert.equal(new Set(rows.map((r) => r.objectId)).size, 3000);
    } finally {
      a.opts.pageDelayMs = 0;
      b.opts.pageDelayMs = 0;
      b.opts.dir = bDir;
    }
  });
});
