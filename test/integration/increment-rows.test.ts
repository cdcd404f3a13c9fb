import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { incrementTogether, rowIncrementsWaiting, rowsBusy, ROWS_IN_FLIGHT, ROWS_PENDING } from '../../src/objects/combine-increments.ts';
import type { Updated } from '../../src/objects/update-object.ts';
import { ident, sql } from '../../src/sql/fragment.ts';
import { AppScope } from '../../src/app-scope.ts';
import { defaultSettings } from '../../src/settings/app-settings.ts';

// Lone Increments of different rows that arrive while ROWS_IN_FLIGHT are in flight go as one
// UPDATE (src/objects/combine-increments.ts, runRows); each answers as it would alone.
forEachEngine('increments of several rows', (h) => {
  const CLASS = 'IncRows';
  const master = { writable: sql`TRUE`, matches: sql`TRUE` };
  const create = async (body: Record<string, unknown>) => {
    const res = await h().client.post(`/1.1/classes/${CLASS}`, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.objectId as string;
  };
  const value = async (id: string, key: string) => (await h().client.get(`/1.1/classes/${CLASS}/${id}`, undefined, { master: true })).body[key];
  const notAlone = async (): Promise<Updated> => {
    throw new Error('ran alone although a group was possible');
  };

  /** Holds ROWS_PENDING lone Increments of `field` (of ids that do not exist) in flight: later ones wait. */
  function holdInFlight(field: string) {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const blockers = Array.from({ length: ROWS_PENDING }, (_, i) =>
      incrementTogether(h().app, { className: CLASS, objectId: `held${field}${i}`, field, rowTests: master }, 0, async () => {
        await held;
        return { updatedAt: 'held', changed: {} };
      }));
    return { release: () => (release(), Promise.all(blockers)) };
  }
  async function untilWaiting(field: string, n: number): Promise<void> {
    const key = { className: CLASS, field, rowTests: master };
    for (let i = 0; i < 2000 && rowIncrementsWaiting(h().app, key) < n; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(rowIncrementsWaiting(h().app, key), n, 'the Increments wait for the next group');
  }
  const submit = (objectId: string, field: string, amount: number, alone: () => Promise<Updated> = notAlone) =>
    incrementTogether(h().app, { className: CLASS, objectId, field, rowTests: master }, amount, alone);

  test('few concurrent lone Increments run alone; once ROWS_PENDING are in flight, the next waits for a group', async () => {
    // Fewer than ROWS_IN_FLIGHT (8) in flight, but enough to group: random-row Increments go in
    // larger groups (docs/benchmarks.md, "Random increments: fewer, larger groups").
    const id = await create({ n: 5 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started = 0;
    const blockers = Array.from({ length: ROWS_PENDING }, (_, i) => submit(`heldfew${i}`, 'n', 0, async () => {
      started++;
      await held;
      return { updatedAt: 'held', changed: {} };
    }));
    let ranAlone = false;
    const next = submit(id, 'n', 1, async () => {
      ranAlone = true;
      return { updatedAt: 'alone', changed: { n: 6 } };
    });
    try {
      assert.ok(ROWS_PENDING < ROWS_IN_FLIGHT);
      await untilWaiting('n', 1);
      assert.equal(started, ROWS_PENDING, 'the first ones ran alone, at once');
      assert.equal(ranAlone, false, 'it waits rather than start another statement');
    } finally {
      release();
      await Promise.all(blockers);
    }
    // Alone in its group (nothing else waited): it runs its own statement, as before.
    assert.deepEqual((await next).changed, { n: 6 });
    assert.equal(ranAlone, true);
  });

  test('waiting Increments of different rows go as one UPDATE; each answers its own row\'s value', async () => {
    const ids = [await create({ n: 10 }), await create({ n: 20 }), await create({ n: 0.1 })];
    const { release } = holdInFlight('n');
    const group = ids.map((id, i) => submit(id, 'n', [1, 2, 0.2][i]));
    await untilWaiting('n', 3);
    await release();
    const got = await Promise.all(group);
    assert.deepEqual(got.map((u) => u.changed), [{ n: 11 }, { n: 22 }, { n: 0.3 }]);
    assert.equal(new Set(got.map((u) => u.updatedAt)).size, 1, 'one UPDATE, one updatedAt');
    assert.deepEqual([await value(ids[0], 'n'), await value(ids[1], 'n'), await value(ids[2], 'n')], [11, 22, 0.3]);
    const rows = await h().db.query<{ x: string; updatedAt: string }>(sql`SELECT xmin::text AS x FROM ${ident(CLASS)} WHERE "objectId" = ANY(${ids}::text[])`);
    assert.equal(new Set(rows.map((r) => r.x)).size, 1, 'one transaction wrote the three');
    assert.equal((await h().client.get(`/1.1/classes/${CLASS}/${ids[0]}`, undefined, { master: true })).body.updatedAt, got[0].updatedAt);
  });

  test('a row the UPDATE leaves unchanged runs alone; a refused value runs every member alone', async () => {
    const a = await create({ n: 1, s: 'text' });
    const b = await create({ n: 2, s: 'more' });
    const ran: string[] = [];
    const record = (label: string) => async (): Promise<Updated> => {
      ran.push(label);
      return { updatedAt: 'alone', changed: {} };
    };
    let held = holdInFlight('n');
    const group = [submit(a, 'n', 5), submit('missing0000000000000000', 'n', 1, record('missing'))];
    await untilWaiting('n', 2);
    await held.release();
    const [ua, missing] = await Promise.all(group);
    assert.deepEqual(ua.changed, { n: 6 });
    assert.equal(missing.updatedAt, 'alone');
    assert.deepEqual(ran, ['missing']);
    held = holdInFlight('s');
    const refused = [submit(a, 's', 1, record('a')), submit(b, 's', 1, record('b'))];
    await untilWaiting('s', 2);
    await held.release();
    await Promise.all(refused);
    assert.deepEqual(ran.sort(), ['a', 'b', 'missing']);
    assert.deepEqual([await value(a, 's'), await value(b, 's'), await value(a, 'n')], ['text', 'more', 6], 'the refused UPDATE wrote nothing');
  });

  test('a row locked by another transaction never blocks the group: skipped and run alone (PostgreSQL), or waited for with the connection (PGlite)', async () => {
    // PGlite has one connection, which the open transaction holds: there the group's statement can
    // only run after that transaction ends, and then finds both rows free. On PostgreSQL the group
    // runs while the row is locked, leaves it out and its Increment runs alone.
    const oneConnection = h().engine === 'pglite';
    const locked = await create({ n: 0 });
    const free = await create({ n: 0 });
    let unlock!: () => void;
    const holding = new Promise<void>((r) => (unlock = r));
    let lockTaken!: () => void;
    const taken = new Promise<void>((r) => (lockTaken = r));
    const tx = h().db.transaction(async (q) => {
      await q.query(sql`SELECT 1 FROM ${ident(CLASS)} WHERE "objectId" = ${locked} FOR UPDATE`);
      lockTaken();
      await holding;
    });
    await taken;
    const ran: string[] = [];
    const held = holdInFlight('n');
    const group = [
      submit(locked, 'n', 1, async () => {
        ran.push('locked');
        return { updatedAt: 'alone', changed: {} };
      }),
      submit(free, 'n', 1),
    ];
    await untilWaiting('n', 2);
    await held.release();
    if (oneConnection) unlock();
    const [ulocked, ufree] = await Promise.all(group);
    assert.deepEqual(ufree.changed, { n: 1 }, 'the free row went in the group');
    if (oneConnection) {
      assert.deepEqual(ran, [], 'both rows went in the group once the transaction had ended');
      assert.deepEqual(ulocked.changed, { n: 1 });
      assert.equal(await value(locked, 'n'), 1);
    } else {
      assert.deepEqual(ran, ['locked'], 'the locked row was left out of the group, not waited for');
    }
    unlock();
    await tx;
  });

  test('40 concurrent Increments over 5 objects over HTTP: none lost, distinct values per object', async () => {
    const ids = await Promise.all([0, 0, 0, 0, 0].map((n) => create({ n })));
    const res = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      h().client.request({ method: 'PUT', url: `/1.1/classes/${CLASS}/${ids[i % 5]}`, body: { n: { __op: 'Increment', amount: 1 } }, query: { fetchWhenSave: true } })));
    assert.ok(res.every((r) => r.status === 200), JSON.stringify(res.find((r) => r.status !== 200)?.body));
    for (const [k, id] of ids.entries()) {
      const mine = res.filter((_, i) => i % 5 === k).map((r) => r.body.n as number).sort((x, y) => x - y);
      assert.deepEqual(mine, [1, 2, 3, 4, 5, 6, 7, 8]);
      assert.equal(await value(id, 'n'), 8);
    }
  });

  test('with two processes serving the app, the Increments waiting behind a process\'s share go as one group', async () => {
    const app = { db: h().app.db, scope: new AppScope(defaultSettings()), processes: 2 };
    const ids = [await create({ n: 1 }), await create({ n: 2 })];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const blockers = Array.from({ length: rowsBusy(2).pending }, (_, i) =>
      incrementTogether(app, { className: CLASS, objectId: `heldp${i}`, field: 'n', rowTests: master }, 0, async () => {
        await held;
        return { updatedAt: 'held', changed: {} };
      }));
    const group = ids.map((id) => incrementTogether(app, { className: CLASS, objectId: id, field: 'n', rowTests: master }, 1, notAlone));
    assert.equal(rowIncrementsWaiting(app, { className: CLASS, field: 'n', rowTests: master }), 2, 'the process\'s share is in flight');
    release();
    await Promise.all(blockers);
    assert.deepEqual((await Promise.all(group)).map((u) => u.changed), [{ n: 2 }, { n: 3 }]);
  });

  test('with two processes serving the app, each groups once its share of ROWS_PENDING is in flight; three of a process run alone', async () => {
    // Each of two workers sees about half the clients: with the whole server's thresholds in each,
    // its groups carried half the rows (docs/benchmarks.md, "Two workers' random increments").
    const app = { db: h().app.db, scope: new AppScope(defaultSettings()), processes: 2 };
    const share = rowsBusy(2).pending;
    assert.ok(share < ROWS_PENDING && share >= 3);
    const id = await create({ n: 3 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started = 0;
    const blockers = Array.from({ length: share }, (_, i) =>
      incrementTogether(app, { className: CLASS, objectId: `heldshare${i}`, field: 'n', rowTests: master }, 0, async () => {
        started++;
        await held;
        return { updatedAt: 'held', changed: {} };
      }));
    let ranAlone = false;
    const next = incrementTogether(app, { className: CLASS, objectId: id, field: 'n', rowTests: master }, 1, async () => {
      ranAlone = true;
      return { updatedAt: 'alone', changed: { n: 4 } };
    });
    try {
      const key = { className: CLASS, field: 'n', rowTests: master };
      for (let i = 0; i < 2000 && rowIncrementsWaiting(app, key) < 1; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(rowIncrementsWaiting(app, key), 1, 'the next Increment waits for a group');
      assert.equal(started, share, 'the first ones ran alone, at once');
      assert.equal(ranAlone, false);
    } finally {
      release();
      await Promise.all(blockers);
    }
    // Alone in its group of one row (the blockers' rows do not exist): it runs alone after all.
    await next;
    assert.equal(ranAlone, true);
    assert.deepEqual(rowsBusy(1), { inFlight: 2, pending: ROWS_PENDING }, 'one process keeps the server\'s thresholds');
  });

  test('two processes\' groups over the same 5 rows (160 Increments): none lost, distinct values per row', async () => {
    // Two apps on one database, each with its own queues, as two workers are: their groups meet
    // on the same rows, where one statement skips what the other holds and that Increment runs alone.
    const ids = await Promise.all([0, 0, 0, 0, 0].map((n) => create({ n })));
    const processes = [0, 1].map(() => ({ db: h().app.db, scope: new AppScope(defaultSettings()), processes: 2 }));
    const alone = (objectId: string) => async (): Promise<Updated> => {
      const [row] = await h().db.query<{ n: number }>(sql`UPDATE ${ident(CLASS)} SET data = data || jsonb_build_object('n', (data->>'n')::numeric + 1)
        WHERE "objectId" = ${objectId} RETURNING (data->>'n')::float8 AS n`);
      return { updatedAt: 'alone', changed: { n: row.n } };
    };
    const all = Array.from({ length: 160 }, (_, i) => {
      const objectId = ids[i % 5];
      return incrementTogether(processes[(i >> 1) % 2], { className: CLASS, objectId, field: 'n', rowTests: master }, 1, alone(objectId));
    });
    const got = await Promise.all(all);
    for (const [k, id] of ids.entries()) {
      const mine = got.filter((_, i) => i % 5 === k).map((u) => Number(u.changed.n)).sort((x, y) => x - y);
      assert.deepEqual(mine, Array.from({ length: 32 }, (_, i) => i + 1));
      assert.equal(await value(id, 'n'), 32);
    }
  });
});
