// The cloud code commands (`node bin/larder.js engine ...` and `schedule ...`, child processes)
// against the configured database: `engine refresh` reads the engine's hook list and stores it
// for every Larder process, `engine status` shows the stored list, and a schedule added from the
// command line is listed and removed. The engine is a stand-in (harness/fake-engine.ts). On every
// engine.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { loadAppKeys } from '../../src/auth/app-keys.ts';
import { HookList } from '../../src/cloud/hook-list.ts';
import { withCommandDb } from './harness/command-database.ts';
import { forEachEngine, TEST_KEYS } from './harness/engines.ts';
import { startFakeEngine, type FakeEngine } from './harness/fake-engine.ts';
import { tempDir } from './harness/import-helpers.ts';
import { dropTestSchemas, runBin } from './harness/larder-process.ts';

const schemas: string[] = [];
after(() => dropTestSchemas(schemas));

forEachEngine('larder engine / larder schedule (the commands, bin/larder.js)', (h) => {
  let fake: FakeEngine;
  let env: Record<string, string>;
  before(async () => {
    fake = await startFakeEngine('production', ['nightly', '__before_save_for_Review']);
    const schema = `t_cli_${randomBytes(5).toString('hex')}`;
    if (h().engine === 'postgres') schemas.push(schema);
    env = h().engine === 'pglite' ? { LARDER_DATA_DIR: tempDir('larder-cloud-cli-') } : { DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LARDER_DB_SCHEMA: schema };
    // A started server stores its keys; the commands sign their engine calls with them.
    await withCommandDb(env, async (db) => void (await loadAppKeys(db, { ...TEST_KEYS, hookKey: 'cli-hook-key' })));
  });
  after(async () => {
    await fake?.close();
  });

  test('engine refresh stores the engine list for every process; engine status shows it; no engine URL is exit 2', async () => {
    const missing = await runBin(['engine', 'refresh'], env);
    assert.equal(missing.status, 2, missing.stdout + missing.stderr);
    assert.match(missing.stderr, /LARDER_ENGINE_URL/);
    const res = await runBin(['engine', 'refresh'], { ...env, LARDER_ENGINE_URL: fake.url });
    assert.equal(res.status, 0, res.stdout + res.stderr);
    assert.deepEqual(JSON.parse(res.stdout).result, ['__before_save_for_Review', 'nightly']);
    const asked = fake.callsTo('/1.1/functions/_ops/metadatas');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].headers['x-lc-id'], TEST_KEYS.appId);
    assert.match(String(asked[0].headers['x-lc-sign']), /^[0-9a-f]{32},\d+,master$/);
    const stored = await withCommandDb(env, async (db) => {
      const list = new HookList();
      await list.load(db);
      return list.snapshot().names;
    });
    assert.deepEqual(stored, ['__before_save_for_Review', 'nightly']);
    const status = await runBin(['engine', 'status'], env);
    assert.equal(status.status, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout).names, ['__before_save_for_Review', 'nightly']);
  });

  test('schedule add, list, runs and remove', async () => {
    const added = await runBin(['schedule', 'add', JSON.stringify({ function: 'nightly', cron: '0 3 * * *', params: { a: 1 } })], env);
    assert.equal(added.status, 0, added.stdout + added.stderr);
    const id = JSON.parse(added.stdout).objectId as string;
    assert.ok(id);
    const listed = await runBin(['schedule', 'list'], env);
    assert.deepEqual((JSON.parse(listed.stdout).results as { objectId: string; function: string }[]).map((s) => [s.objectId, s.function]), [[id, 'nightly']]);
    const runs = await runBin(['schedule', 'runs', id], env);
    assert.deepEqual(JSON.parse(runs.stdout).results, []);
    const bad = await runBin(['schedule', 'add', '{"function":"nightly","cron":"whenever"}'], env);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /cron/);
    assert.equal((await runBin(['schedule', 'remove', id], env)).status, 0);
    assert.deepEqual(JSON.parse((await runBin(['schedule', 'list'], env)).stdout).results, []);
  });
});
