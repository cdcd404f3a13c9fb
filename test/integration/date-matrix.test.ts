// The date matrix on both engines: every Date form the server accepts is stored AND queried, both
// ways (stored in one form, found by each form of the same instant, by equality and by range),
// because writes and queries share one normaliser (src/model/dates.ts). Forms it refuses are
// refused by both (111 on write, 102 on query). The reserved columns take only their own type.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { ACCEPTED, REFUSED } from '../../src/model/dates.fixture.ts';
import { forEachEngine } from './harness/engines.ts';
import { assertError } from './harness/user-helpers.ts';

const date = (iso: unknown) => ({ __type: 'Date', iso });

forEachEngine('date matrix: every accepted form stored and queried', (h) => {
  const tag = `t${randomBytes(4).toString('hex')}`;
  /** objectId -> the stored iso of its `d`. */
  const stored = new Map<string, string>();

  before(async () => {
    const res = await h().client.post('/1.1/batch', {
      requests: ACCEPTED.map(([input]) => ({ method: 'POST', path: '/1.1/classes/Dated', body: { tag, input, d: date(input) } })),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    res.body.forEach((item: { success?: { objectId: string } }, i: number) => {
      assert.ok(item.success, `stored ${ACCEPTED[i][0]}: ${JSON.stringify(item)}`);
      stored.set(item.success.objectId, ACCEPTED[i][1]);
    });
  });

  const find = async (where: Record<string, unknown>) => {
    const res = await h().client.get('/1.1/classes/Dated', { where: { tag, ...where }, limit: 1000 });
    assert.equal(res.status, 200, `${JSON.stringify(where)}: ${JSON.stringify(res.body)}`);
    return res.body.results as Array<{ objectId: string; input: string; d: { __type: string; iso: string } }>;
  };
  const idsStoredAs = (pred: (iso: string) => boolean) => [...stored].filter(([, iso]) => pred(iso)).map(([id]) => id).sort();

  test('each form comes back in the stored form', async () => {
    const rows = await find({});
    assert.equal(rows.length, ACCEPTED.length);
    for (const r of rows) assert.deepEqual(r.d, date(stored.get(r.objectId)), r.input);
  });

  test('each form finds, by equality, every object stored at the same instant in any form', async () => {
    for (const [input, iso] of ACCEPTED) {
      const got = (await find({ d: date(input) })).map((r) => r.objectId).sort();
      assert.deepEqual(got, idsStoredAs((s) => s === iso), `equality with ${input}`);
      const inList = (await find({ d: { $in: [date(input)] } })).map((r) => r.objectId).sort();
      assert.deepEqual(inList, got, `$in with ${input}`);
    }
  });

  test('each form bounds a range query chronologically', async () => {
    for (const [input, iso] of ACCEPTED) {
      const lte = (await find({ d: { $lte: date(input) } })).map((r) => r.objectId).sort();
      assert.deepEqual(lte, idsStoredAs((s) => s <= iso), `$lte ${input}`);
      const gt = (await find({ d: { $gt: date(input) } })).map((r) => r.objectId).sort();
      assert.deepEqual(gt, idsStoredAs((s) => s > iso), `$gt ${input}`);
    }
  });

  test('each form compares with createdAt and updatedAt', async () => {
    for (const [input] of ACCEPTED) {
      for (const column of ['createdAt', 'updatedAt']) {
        const rows = await find({ [column]: { $gt: date(input) } });
        // Every object was created now, after each accepted instant (all lie before 9999-12-31T23:59:59.999Z).
        const expected = input.startsWith('9999') ? 0 : ACCEPTED.length;
        assert.equal(rows.length, expected, `${column} > ${input}`);
      }
    }
  });

  test('refused forms are refused by writes (111) and by queries (102) alike', async () => {
    for (const input of REFUSED) {
      assertError(await h().client.post('/1.1/classes/Dated', { tag, d: date(input) }), 400, 111);
      assertError(await h().client.get('/1.1/classes/Dated', { where: { d: date(input) } }), 400, 102);
    }
    assert.equal((await find({})).length, ACCEPTED.length, 'nothing was written');
  });

  test('the reserved columns take only their own type: 102 instead of an empty page', async () => {
    for (const where of [
      { createdAt: { $gt: '2020-01-01' } },
      { createdAt: { $lt: 5 } },
      { updatedAt: '2020-01-01T00:00:00Z' },
      { updatedAt: { $in: [date('2020-01-01'), true] } },
      { createdAt: { $ne: 'x' } },
      { objectId: 5 },
      { objectId: { $in: ['a', 1] } },
      { objectId: { $gte: date('2020-01-01') } },
    ]) {
      assertError(await h().client.get('/1.1/classes/Dated', { where }), 400, 102);
    }
    // null is still a valid (never matching) value, and the right types work.
    assert.equal((await find({ createdAt: null })).length, 0);
    assert.equal((await find({ createdAt: { $ne: null } })).length, ACCEPTED.length);
    const [first] = await find({});
    assert.deepEqual((await find({ objectId: first.objectId })).map((r) => r.objectId), [first.objectId]);
  });
});
