/**
 * The app's lifetime (docs/architecture.md, "Per-app state"): what a process holds for an app is
 * released when the app closes, and a notification listener can be stopped alone while the
 * database stays open (a second app on one engine, as in these tests).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appSlot } from '../../src/app-scope.ts';
import { invalidationsReceived } from '../../src/auth/cache-invalidation.ts';
import { workerOf } from '../../src/export/export-worker.ts';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { liveQueryOf } from '../../src/modules/livequery/service/service-registry.ts';
import { sql } from '../../src/sql/fragment.ts';
import { forEachEngine, startHarness } from './harness/engines.ts';

const until = async (what: () => boolean, ms = 10_000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return what();
};

forEachEngine('app lifetime', (h) => {
  test('a stopped listener hears nothing more; another on the same channel still does', async () => {
    const listen = h().db.listen;
    assert.ok(listen, 'both engines listen');
    const channel = `larder_test_${Math.random().toString(36).slice(2, 10)}`;
    const stopped: string[] = [];
    const kept: string[] = [];
    const unlisten = await listen.call(h().db, channel, (p) => stopped.push(p), () => {});
    const unlistenKept = await listen.call(h().db, channel, (p) => kept.push(p), () => {});
    try {
      await h().db.query(sql`SELECT pg_notify(${channel}, 'one')`);
      assert.ok(await until(() => stopped.length === 1 && kept.length === 1), 'both heard the first');
      await unlisten();
      await h().db.query(sql`SELECT pg_notify(${channel}, 'two')`);
      assert.ok(await until(() => kept.length === 2), 'the kept listener heard the second');
      assert.deepEqual(stopped, ['one'], 'the stopped one did not');
    } finally {
      await unlistenKept();
    }
  });

  test('closing an app disposes what it holds: services, slots, the invalidation listener', async () => {
    const b = await startHarness(h().engine, { sameDatabaseAs: h() });
    let stopped = false;
    try {
      assert.ok(liveQueryOf(b.app) && filesServiceOf(b.app) && workerOf(b.app), 'the mounts put their services into the scope');
      b.app.scope.put(appSlot<string>('test.held'), 'x', () => void (stopped = true));
      // B hears A's settings change while open.
      const seen = invalidationsReceived(b.app);
      await h().client.put('/1.1/larder/settings', { includeACLInQueries: true }, { master: true });
      assert.ok(await until(() => invalidationsReceived(b.app) > seen), 'the open app heard the change');
      assert.equal(b.app.settings.includeACLInQueries, true, 'and replaced its settings snapshot');
    } finally {
      await b.stop();
    }
    assert.equal(stopped, true, 'closeApp ran the disposer of a held slot');
    assert.equal(b.app.scope.closed, true);
    assert.equal(liveQueryOf(b.app) ?? filesServiceOf(b.app) ?? workerOf(b.app), undefined, 'the services left the scope');
    assert.throws(() => b.app.scope.put(appSlot<string>('test.late'), 'y'), /app closed/);
    // A closed app applies nothing more: its listener is gone (its last snapshot stays).
    await h().client.put('/1.1/larder/settings', { includeACLInQueries: false }, { master: true });
    const control = await startHarness(h().engine, { sameDatabaseAs: h() });
    try {
      const seen = invalidationsReceived(control.app);
      await h().client.put('/1.1/larder/settings', { includeACLInQueries: false }, { master: true });
      assert.ok(await until(() => invalidationsReceived(control.app) > seen), 'an open app heard the change');
      assert.equal(b.app.settings.includeACLInQueries, true, 'the closed one did not reload');
    } finally {
      await control.stop();
      await h().client.put('/1.1/larder/settings', { includeACLInQueries: null }, { master: true });
    }
  });
});
