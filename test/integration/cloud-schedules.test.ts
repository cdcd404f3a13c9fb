// Scheduled cloud functions: the admin API, and exactly one run per tick when two Larder
// processes (two apps on one database, each with its own scheduler) poll the same schedules.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CloudCode } from '../../src/cloud/cloud-code.ts';
import { createLogger } from '../../src/log.ts';
import { forEachEngineWithCloud, testCloudOptions } from './harness/engine-app.ts';
import { startHarness, type Harness } from './harness/engines.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachEngineWithCloud('cloud scheduled functions', (h) => {
  let second: (Harness & { stop(): Promise<void> }) | undefined;
  before(async () => {
    // Another Larder process on the same database, with its own scheduler polling.
    const cloud = new CloudCode(testCloudOptions(h().engineApp.url), createLogger('silent'));
    second = await startHarness(h().engine, { sameDatabaseAs: h(), cloud });
  });
  after(async () => {
    await second?.stop();
  });

  test('the admin API is master-key only and checks what it is given', async () => {
    const c = h().client;
    assert.equal((await c.get('/1.1/larder/schedules')).status, 403);
    assert.equal((await c.post('/1.1/larder/schedules', { function: 'x', cron: '* * * * *' })).status, 403);
    const bad = await c.post('/1.1/larder/schedules', { function: 'x', cron: 'whenever' }, { master: true });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /'cron' must have 5 fields/);
    assert.equal((await c.get('/1.1/larder/schedules/nope', {}, { master: true })).status, 404);
    assert.equal((await c.delete('/1.1/larder/schedules/nope', { master: true })).status, 404);
  });

  test('a schedule runs its function once per tick across processes, with a run log', async () => {
    const c = h().client;
    const tag = `t${Date.now()}`;
    const created = await c.post('/1.1/larder/schedules', { function: 'scheduledTick', cron: '* * * * * *', params: { tag } }, { master: true });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.objectId as string;
    assert.equal(created.body.function, 'scheduledTick');
    assert.equal(created.body.timezone, 'UTC');
    assert.equal(created.body.production, true);
    const deadline = Date.now() + 60_000;
    let runs: { tick: string; status: string; durationMs: number | null }[] = [];
    while (Date.now() < deadline) {
      runs = (await c.get(`/1.1/larder/schedules/${id}/runs`, {}, { master: true })).body.results;
      if (runs.filter((r) => r.status === 'ok').length >= 3) break;
      await sleep(200);
    }
    const off = await c.put(`/1.1/larder/schedules/${id}`, { enabled: false }, { master: true });
    assert.equal(off.body.enabled, false);
    assert.equal(off.body.nextRunAt, null);
    // Runs claimed before the switch finish: at least 1.5 s (a claim's run row may be written a
    // moment after the switch), and until none is running (on a loaded machine one may take seconds).
    await sleep(1500);
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(200)) {
      runs = (await c.get(`/1.1/larder/schedules/${id}/runs`, {}, { master: true })).body.results;
      if (!runs.some((r) => r.status === 'running')) break;
    }
    assert.ok(runs.length >= 3, JSON.stringify(runs));
    assert.equal(new Set(runs.map((r) => r.tick)).size, runs.length, 'one run per tick');
    assert.ok(runs.every((r) => r.status === 'ok' && typeof r.durationMs === 'number'), JSON.stringify(runs));
    const logs = await c.get('/1.1/classes/HookLog', { where: { hook: 'scheduledTick', tag }, count: 1, limit: 0 }, { master: true });
    assert.equal(logs.body.count, runs.length, 'the function ran exactly once per recorded tick');
  });

  test('a failing function is recorded as an error with its message', async () => {
    const c = h().client;
    const created = await c.post('/1.1/larder/schedules', { function: 'scheduledFail', cron: '* * * * * *' }, { master: true });
    const id = created.body.objectId as string;
    let runs: { status: string; error: string | null }[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !runs.some((r) => r.status === 'error')) {
      await sleep(200);
      runs = (await c.get(`/1.1/larder/schedules/${id}/runs`, {}, { master: true })).body.results;
    }
    assert.equal((await c.delete(`/1.1/larder/schedules/${id}`, { master: true })).status, 200);
    const failed = runs.find((r) => r.status === 'error');
    assert.ok(failed, JSON.stringify(runs));
    assert.match(failed.error ?? '', /scheduled failure/);
    assert.equal((await c.get(`/1.1/larder/schedules/${id}/runs`, {}, { master: true })).status, 404);
  });
});
