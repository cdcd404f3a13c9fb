import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { assertError, signUp } from './harness/user-helpers.ts';
import { incrementTogether, type IncrementTarget } from '../../src/objects/combine-increments.ts';
import type { Updated } from '../../src/objects/update-object.ts';
import { sql } from '../../src/sql/fragment.ts';

// Concurrent Increments of one row go as one UPDATE per group (src/objects/combine-increments.ts).
forEachEngine('hot-row increments', (h) => {
  const CLASS = 'HotRow';
  const put = (id: string, body: unknown, opts: { session?: string; fetch?: boolean } = {}) =>
    h().client.request({ method: 'PUT', url: `/1.1/classes/${CLASS}/${id}`, body, session: opts.session, query: opts.fetch ? { fetchWhenSave: true } : undefined });
  const value = async (id: string, key: string) => (await h().client.get(`/1.1/classes/${CLASS}/${id}`, undefined, { master: true })).body[key];
  const create = async (body: Record<string, unknown>) => {
    const res = await h().client.post(`/1.1/classes/${CLASS}`, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.objectId as string;
  };

  /** Holds a first increment of the target in flight, so that the next submissions form one group. */
  function holdFirst(target: IncrementTarget) {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = incrementTogether(h().app, target, 0, async () => {
      await held;
      return { updatedAt: 'held', changed: {} };
    });
    return { first, release };
  }
  const master = { writable: sql`TRUE`, matches: sql`TRUE` };
  const notAlone = async (): Promise<Updated> => {
    throw new Error('ran alone although a group was possible');
  };

  test('a group adds the sum once and answers each caller its own value, in arrival order', async () => {
    const id = await create({ n: 10 });
    const target = { className: CLASS, objectId: id, field: 'n', rowTests: master };
    const { first, release } = holdFirst(target);
    const group = [1, 2, 3, -4].map((a) => incrementTogether(h().app, target, a, notAlone));
    release();
    await first;
    const got = await Promise.all(group);
    assert.deepEqual(got.map((u) => u.changed.n), [11, 13, 16, 12]);
    assert.equal(new Set(got.map((u) => u.updatedAt)).size, 1, 'one UPDATE, one updatedAt');
    assert.equal(await value(id, 'n'), 12);
  });

  test('amounts add in decimal, as one Increment after another does', async () => {
    const id = await create({ x: 0.1 });
    const target = { className: CLASS, objectId: id, field: 'x', rowTests: master };
    const { first, release } = holdFirst(target);
    const group = [0.2, 0.1, 0.2].map((a) => incrementTogether(h().app, target, a, notAlone));
    release();
    await first;
    assert.deepEqual((await Promise.all(group)).map((u) => u.changed.x), [0.3, 0.4, 0.6]);
    assert.equal(await value(id, 'x'), 0.6);
  });

  test('a group that changes no row, or whose value is refused, runs each caller alone', async () => {
    const id = await create({ s: 'text', big: 1e308 });
    for (const [objectId, field, amounts] of [
      ['missing0000000000000000', 's', [1, 2]],
      [id, 's', [1, 2]],
      // +1e308 alone is out of range, so the group is refused; then -1e308 alone succeeds.
      [id, 'big', [1e308, -1e308]],
    ] as const) {
      const target = { className: CLASS, objectId, field, rowTests: master };
      const { first, release } = holdFirst(target);
      const ran: number[] = [];
      const group = amounts.map((a) => incrementTogether(h().app, target, a, async () => {
        ran.push(a);
        return { updatedAt: 'alone', changed: {} };
      }));
      release();
      await first;
      await Promise.all(group);
      assert.deepEqual(ran.sort(), [...amounts].sort(), `${objectId}.${field}: each ran alone`);
    }
    assert.equal(await value(id, 'big'), 1e308, 'the refused group wrote nothing');
  });

  test('40 concurrent Increments over HTTP: none lost, each answer a distinct value', async () => {
    const id = await create({ n: 0 });
    const res = await Promise.all(Array.from({ length: 40 }, () => put(id, { n: { __op: 'Increment', amount: 1 } }, { fetch: true })));
    assert.ok(res.every((r) => r.status === 200), JSON.stringify(res.find((r) => r.status !== 200)?.body));
    assert.deepEqual(res.map((r) => r.body.n).sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
    assert.ok(res.every((r) => typeof r.body.updatedAt === 'string'));
    assert.equal(await value(id, 'n'), 40);
    const plain = await put(id, { n: { __op: 'Increment', amount: 1 } });
    assert.equal(plain.status, 200);
    assert.equal(typeof plain.body.updatedAt, 'string');
    assert.equal(plain.body.n, undefined, 'without fetchWhenSave the answer has no value');
  });

  test('concurrent callers with different rights: each gets its own answer', async () => {
    const alice = await signUp(h());
    const bob = await signUp(h());
    const id = await create({ n: 0, ACL: { [alice.objectId]: { read: true, write: true }, '*': { read: true } } });
    const bobAlone = await put(id, { n: { __op: 'Increment', amount: 1 } }, { session: bob.sessionToken });
    assertError(bobAlone, 403, bobAlone.body.code);
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) => put(id, { n: { __op: 'Increment', amount: 1 } }, { session: i % 2 ? bob.sessionToken : alice.sessionToken })));
    res.forEach((r, i) => (i % 2 ? assert.deepEqual(r.body, bobAlone.body) : assert.equal(r.status, 200, JSON.stringify(r.body))));
    assert.equal(await value(id, 'n'), 10);
  });

  test('concurrent Increments of a field holding a string all fail as one alone does', async () => {
    const id = await create({ s: 'text' });
    const alone = await put(id, { s: { __op: 'Increment', amount: 1 } });
    assert.notEqual(alone.status, 200);
    const res = await Promise.all(Array.from({ length: 10 }, () => put(id, { s: { __op: 'Increment', amount: 1 } })));
    for (const r of res) assert.deepEqual({ status: r.status, body: r.body }, { status: alone.status, body: alone.body });
    assert.equal(await value(id, 's'), 'text');
  });
});
