// Where Larder's cloud code calls go (issue 10, "Configuration" and "Hooks"): X-LC-Prod: 0 to the
// staging engine (LARDER_ENGINE_STAGING_URL) and to production when none is set, for functions
// and hooks alike; what a function call passes on (client address chain, session); the hook list
// read again on the admin endpoint, periodically, and shared with the other processes on the
// database; and no hooks at all for `larder import` and `larder sync`. The engines here are
// stand-ins that record what they receive (harness/fake-engine.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CloudCode } from '../../src/cloud/cloud-code.ts';
import { createLogger } from '../../src/log.ts';
import { SyncRun } from '../../src/migration/sync-run.ts';
import { SourceClient } from '../../src/migration/sync-source.ts';
import { testCloudOptions } from './harness/engine-app.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';
import { startFakeEngine, type FakeEngine } from './harness/fake-engine.ts';
import { FIXTURES, importInto } from './harness/import-helpers.ts';

type Started = Harness & { stop(): Promise<void> };
const silent = () => createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

type FunctionResult = { engine: string; prod: string | null; forwardedFor: string | null; realIp: string | null; session: string | null; params: unknown };

for (const engine of engines()) {
  describe(`cloud code: staging and production engines [${engine}]`, () => {
    let prod: FakeEngine;
    let staging: FakeEngine;
    let h: Started;
    before(async () => {
      const names = ['which', '__before_save_for_Hooked', '__after_save_for_Hooked'];
      prod = await startFakeEngine('production', names);
      staging = await startFakeEngine('staging', names);
      const cloud = new CloudCode(testCloudOptions(prod.url, { stagingUrl: staging.url }), silent());
      h = await startHarness(engine, { cloud });
      await cloud.refresh(h.app);
    });
    after(async () => {
      await h?.stop();
      await prod?.close();
      await staging?.close();
    });

    test('functions: X-LC-Prod: 0 reaches the staging engine, 1 or none production; caller details are passed on', async () => {
      const call = async (headers: Record<string, string>) => {
        const res = await h.client.post('/1.1/functions/which', { a: 1 }, { headers });
        assert.equal(res.status, 200, res.text);
        return (res.body as { result: FunctionResult }).result;
      };
      const s = await call({ 'x-lc-prod': '0', 'x-lc-session': 'r:some-session', 'x-forwarded-for': '203.0.113.7' });
      assert.equal(s.engine, 'staging');
      assert.equal(s.prod, '0');
      assert.equal(s.session, 'r:some-session');
      assert.deepEqual(s.params, { a: 1 });
      // The chain the client sent, then the address Larder saw it from.
      assert.equal(s.forwardedFor, '203.0.113.7, 127.0.0.1');
      assert.ok(s.realIp);
      assert.equal((await call({ 'x-lc-prod': '1' })).engine, 'production');
      const plain = await call({});
      assert.equal(plain.engine, 'production');
      assert.equal(plain.forwardedFor, '127.0.0.1');
    });

    test('hooks follow the writer: X-LC-Prod: 0 runs them on the staging engine', async () => {
      const before = { prod: prod.callsTo('/1.1/functions/Hooked/').length, staging: staging.callsTo('/1.1/functions/Hooked/').length };
      const onStaging = await h.client.post('/1.1/classes/Hooked', { n: 1 }, { headers: { 'x-lc-prod': '0' }, query: { fetchWhenSave: true } });
      assert.equal(onStaging.status, 201, onStaging.text);
      assert.equal(onStaging.body.by, 'staging');
      const onProd = await h.client.post('/1.1/classes/Hooked', { n: 2 }, { query: { fetchWhenSave: true } });
      assert.equal(onProd.body.by, 'production');
      // The after-hooks are not awaited by the request.
      await until('the afterSave calls', () => staging.callsTo('/1.1/functions/Hooked/afterSave').length > 0 && prod.callsTo('/1.1/functions/Hooked/afterSave').length > 0);
      const hooked = staging.callsTo('/1.1/functions/Hooked/');
      assert.equal(hooked.length - before.staging, 2);
      assert.ok(hooked.every((c) => c.headers['x-lc-prod'] === '0' && c.headers['x-lc-hook-key'] === h.app.keys.hookKey));
      assert.equal(prod.callsTo('/1.1/functions/Hooked/').length - before.prod, 2);
    });
  });

  describe(`cloud code: no staging engine configured [${engine}]`, () => {
    let prod: FakeEngine;
    let h: Started;
    before(async () => {
      prod = await startFakeEngine('production', ['which', '__before_save_for_Hooked']);
      const cloud = new CloudCode(testCloudOptions(prod.url), silent());
      h = await startHarness(engine, { cloud });
      await cloud.refresh(h.app);
    });
    after(async () => {
      await h?.stop();
      await prod?.close();
    });

    test('X-LC-Prod: 0 falls back to the production engine, which is told it is a staging call', async () => {
      const res = await h.client.post('/1.1/functions/which', {}, { headers: { 'x-lc-prod': '0' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result.engine, 'production');
      assert.equal(res.body.result.prod, '0');
      const write = await h.client.post('/1.1/classes/Hooked', { n: 1 }, { headers: { 'x-lc-prod': '0' }, query: { fetchWhenSave: true } });
      assert.equal(write.body.by, 'production');
    });
  });

  describe(`cloud code: the hook list is read again and shared [${engine}]`, () => {
    let fake: FakeEngine;
    let h: Started;
    let second: Started;
    let periodic: Started;
    before(async () => {
      fake = await startFakeEngine('production', ['which']);
      const cloud = new CloudCode(testCloudOptions(fake.url), silent());
      h = await startHarness(engine, { cloud });
      await cloud.refresh(h.app);
      // Another Larder process on the same database; it reads the list once, at its start.
      second = await startHarness(engine, { sameDatabaseAs: h, cloud: new CloudCode(testCloudOptions(fake.url), silent()) });
    });
    after(async () => {
      await periodic?.stop();
      await second?.stop();
      await h?.stop();
      await fake?.close();
    });

    test('the admin endpoint: master key only; a redeployed hook is used at once, here and in the other process', async () => {
      fake.names = ['which', '__before_save_for_Late'];
      // Until the list is read again, Late has no hook.
      const early = await h.client.post('/1.1/classes/Late', { n: 1 }, { query: { fetchWhenSave: true } });
      assert.equal(early.body.by, undefined);
      assert.equal((await h.client.post('/1.1/larder/engine/refresh', {})).status, 403);
      const refreshed = await h.client.post('/1.1/larder/engine/refresh', {}, { master: true });
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.deepEqual(refreshed.body.result, ['__before_save_for_Late', 'which']);
      const late = await h.client.post('/1.1/classes/Late', { n: 2 }, { query: { fetchWhenSave: true } });
      assert.equal(late.body.by, 'production');
      const status = await h.client.get('/1.1/larder/engine', {}, { master: true });
      assert.deepEqual(status.body.hooks, ['__before_save_for_Late', 'which']);
      assert.ok(Date.parse(status.body.refreshedAt) > Date.now() - 60_000);
      assert.equal((await h.client.get('/1.1/larder/engine')).status, 403);
      // It did not ask the engine again: the list reached it through the database.
      const asked = fake.callsTo('/1.1/functions/_ops/metadatas').length;
      await until('the other process to load the new list', () => second.app.cloud?.hooks.has('__before_save_for_Late') === true);
      assert.equal(fake.callsTo('/1.1/functions/_ops/metadatas').length, asked);
      const there = await second.client.post('/1.1/classes/Late', { n: 3 }, { query: { fetchWhenSave: true } });
      assert.equal(there.body.by, 'production');
    });

    test('a periodic refresh (LARDER_ENGINE_REFRESH_SECONDS) picks up a changed list by itself', async () => {
      periodic = await startHarness(engine, { sameDatabaseAs: h, cloud: new CloudCode(testCloudOptions(fake.url, { refreshSeconds: 1 }), silent()) });
      fake.names = ['which', '__before_save_for_Late', '__before_save_for_Later'];
      await until('the periodic refresh', () => periodic.app.cloud?.hooks.has('__before_save_for_Later') === true);
      // It was stored and announced: the first process has it too.
      await until('the first process to load it', () => h.app.cloud?.hooks.has('__before_save_for_Later') === true);
    });
  });

  describe(`cloud code: larder import and larder sync run no hooks [${engine}]`, () => {
    // Hooks for every class of the import fixture and of the synced class; each would refuse.
    const CLASSES = ['Comment', 'Post', '_File', '_Role', '_User', 'Synced'];
    const names = CLASSES.flatMap((c) => [`__before_save_for_${c}`, `__after_save_for_${c}`, `__before_update_for_${c}`, `__after_update_for_${c}`]);
    let fake: FakeEngine;
    let target: Started;
    let source: Started;
    before(async () => {
      fake = await startFakeEngine('production', names);
      const cloud = new CloudCode(testCloudOptions(fake.url), silent());
      target = await startHarness(engine, { cloud });
      await cloud.refresh(target.app);
      source = await startHarness(engine);
    });
    after(async () => {
      await source?.stop();
      await target?.stop();
      await fake?.close();
    });

    const hookCalls = () => fake.calls.filter((c) => c.path !== '/1.1/functions/_ops/metadatas');

    test('the hooks are live: an API write calls them', async () => {
      const before = hookCalls().length;
      const res = await target.client.post('/1.1/classes/Synced', { n: 0 }, { query: { fetchWhenSave: true } });
      assert.equal(res.body.by, 'production');
      await until('the afterSave call', () => hookCalls().length >= before + 2);
      await target.client.delete(`/1.1/classes/Synced/${res.body.objectId}`, { master: true });
    });

    test('an import writes every object without calling the engine', async () => {
      const before = hookCalls().length;
      const { result, errors } = await importInto(target, join(FIXTURES, 'jsonl'));
      assert.deepEqual(errors, []);
      assert.equal(result.failures, 0);
      assert.equal((await target.client.get('/1.1/classes/Post', { count: 1, limit: 0 }, { master: true })).body.count, 4);
      await sleep(500);
      assert.deepEqual(hookCalls().slice(before).map((c) => c.path), []);
    });

    test('a sync writes every object without calling the engine', async () => {
      const sourceUrl = await source.listen();
      for (let i = 0; i < 3; i++) assert.equal((await source.client.post('/1.1/classes/Synced', { i })).status, 201);
      const before = hookCalls().length;
      const run = new SyncRun({
        client: new SourceClient({ baseUrl: sourceUrl, appId: TEST_KEYS.appId, appKey: TEST_KEYS.appKey, masterKey: TEST_KEYS.masterKey, auth: 'key', attempts: 1 }),
        target: { db: target.db, classes: target.app.classes },
        key: { source: sourceUrl, appId: TEST_KEYS.appId },
        classes: ['Synced'],
        once: true,
        intervalMs: 1000,
        overlapMs: 1000,
        reconcileMs: 0,
        log: () => {},
      });
      const totals = await run.run();
      assert.equal(totals.written, 3);
      const synced = await target.client.get('/1.1/classes/Synced', {}, { master: true });
      assert.equal(synced.body.results.length, 3);
      assert.ok(synced.body.results.every((r: { by?: string }) => r.by === undefined));
      await sleep(500);
      assert.deepEqual(hookCalls().slice(before).map((c) => c.path), []);
    });
  });
}
