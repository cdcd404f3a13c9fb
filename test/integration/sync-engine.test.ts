import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SyncRun } from '../../src/migration/sync-run.ts';
import { sql } from '../../src/sql/fragment.ts';
import { SourceClient } from '../../src/migration/sync-source.ts';
import { ensureStateTable, loadStates, saveState } from '../../src/migration/sync-state.ts';
import { forEachEngine, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';

// The sync engine in-process: the harness app is the source (listening on a real socket), a
// second app on the same engine is the target. The cases the process tests cannot reach
// quickly: resuming from a cursor the source refuses, a source whose scan refuses objectId in
// where, overlap and relation removal in rounds, and unknown classes.

type Target = Harness & { stop(): Promise<void> };

forEachEngine('larder sync engine', (h) => {
  let base: string;
  let target: Target;
  const lines: string[] = [];
  const ids: string[] = [];
  let seededAt = 0;

  before(async () => {
    base = await h().listen();
    target = await startHarness(h().engine);
    const requests = Array.from({ length: 25 }, (_, i) => ({ method: 'POST', path: '/1.1/classes/Item', body: { i } }));
    const res = await h().client.post('/1.1/batch', { requests }, { master: true });
    for (const r of res.body as { success: { objectId: string } }[]) ids.push(r.success.objectId);
    ids.sort();
    seededAt = Date.now();
  });
  after(async () => {
    await target?.stop();
  });

  function run(opts: { fetchImpl?: typeof fetch; classes?: string[]; once?: boolean } = {}): SyncRun {
    const client = new SourceClient({ baseUrl: base, ...TEST_KEYS, fetchImpl: opts.fetchImpl, backoffMs: 1 });
    return new SyncRun({
      client,
      target: { db: target.db, classes: target.app.classes },
      key: { source: client.baseUrl, appId: TEST_KEYS.appId },
      classes: opts.classes ?? ['Item'],
      once: opts.once ?? true,
      intervalMs: 50,
      overlapMs: 1000,
      reconcileMs: 1,
      log: (l) => lines.push(l),
      pageSize: 10,
    });
  }

  async function targetIds(className: string): Promise<string[]> {
    const res = await target.client.get(`/1.1/classes/${className}`, { limit: 1000, order: 'objectId', keys: 'objectId' }, { master: true });
    return (res.body.results as { objectId: string }[]).map((o) => o.objectId);
  }

  test('a full copy resumes after a saved page even when the source refuses the saved cursor', async () => {
    await ensureStateTable(target.db);
    const key = { source: base, appId: TEST_KEYS.appId };
    // As a killed run leaves it: 10 objects copied, a cursor the source will not take (forged).
    await saveState(target.db, key, { className: 'Item', phase: 'full', lastId: ids[9], cursor: 'forged.cursor', cursorAt: Date.now(), highWater: new Date(Date.now() - 60_000).toISOString(), copied: 10, reconciledAt: null });
    const before = lines.length;
    const t = await run().run();
    assert.equal(t.received, 15 + 25, 'the 15 after the saved page, then all 25 in the round that follows a full copy');
    const copyLines = lines.slice(before).filter((l) => l.startsWith('Item: full copy,'));
    assert.deepEqual(copyLines, ['Item: full copy, 20 objects so far', 'Item: full copy, 25 objects so far']);
    assert.deepEqual(await targetIds('Item'), ids);
    const s = (await loadStates(target.db, key)).get('Item');
    assert.equal(s?.phase, 'incremental');
    assert.equal(s?.copied, 25 + 25);
  });

  test('a source whose scan refuses objectId in where makes the copy start over, without duplicates', async () => {
    const key = { source: base, appId: TEST_KEYS.appId };
    await target.db.query(sql`DELETE FROM _larder_sync_state`);
    await target.db.query(sql`DELETE FROM "Item"`);
    await saveState(target.db, key, { className: 'Item', phase: 'full', lastId: ids[4], cursor: null, cursorAt: null, highWater: null, copied: 5, reconciledAt: null });
    const picky = (async (input: string | URL | Request, init?: RequestInit) => {
      const u = new URL(String(input));
      if (u.pathname.includes('/scan/') && (u.searchParams.get('where') ?? '').includes('objectId')) {
        return new Response(JSON.stringify({ code: 102, error: 'scan_key must not appear in where' }), { status: 400 });
      }
      return fetch(input, init);
    }) as typeof fetch;
    const before = lines.length;
    await run({ fetchImpl: picky }).run();
    assert.ok(lines.slice(before).some((l) => /refused to resume after .* scanning again from the start/.test(l)), lines.slice(before).join('\n'));
    assert.deepEqual(await targetIds('Item'), ids);
  });

  test('rounds copy updates, deletions and relation removals; the overlap re-reads without rewriting', async () => {
    await h().client.put(`/1.1/classes/Item/${ids[0]}`, { i: 100, likes: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Item', objectId: ids[1] }, { __type: 'Pointer', className: 'Item', objectId: ids[2] }] } }, { master: true });
    await run().run();
    const members = async () => {
      const where = JSON.stringify({ $relatedTo: { object: { __type: 'Pointer', className: 'Item', objectId: ids[0] }, key: 'likes' } });
      const res = await target.client.get('/1.1/classes/Item', { where, keys: 'objectId' }, { master: true });
      return (res.body.results as { objectId: string }[]).map((o) => o.objectId).sort();
    };
    assert.deepEqual(await members(), [ids[1], ids[2]]);
    await h().client.put(`/1.1/classes/Item/${ids[0]}`, { likes: { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: 'Item', objectId: ids[1] }] } }, { master: true });
    await h().client.delete(`/1.1/classes/Item/${ids[3]}`, { master: true });
    // Deletions only touch objects created before the id listing minus the overlap (1 s here).
    await new Promise((r) => setTimeout(r, Math.max(0, seededAt + 1200 - Date.now())));
    const t = await run().run();
    assert.deepEqual(await members(), [ids[2]]);
    assert.equal(t.deleted, 1);
    assert.deepEqual(await targetIds('Item'), ids.filter((id) => id !== ids[3]));
    const got = await target.client.get(`/1.1/classes/Item/${ids[0]}`, undefined, { master: true });
    assert.equal(got.body.i, 100);
    // A third run finds the same objects in the overlap and writes nothing.
    const again = await run().run();
    assert.equal(again.written, 0);
  });

  test('a class the source does not have is refused before anything is copied', async () => {
    await assert.rejects(run({ classes: ['Nope'] }).run(), /The source has no class Nope/);
  });
});
