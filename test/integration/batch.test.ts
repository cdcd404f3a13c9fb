import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

type Obj = Record<string, any>;

forEachEngine('batch: POST /1.1/batch', (h) => {
  const batch = (requests: unknown, master = false) => h().client.post('/1.1/batch', { requests }, { master });

  test('create, update, get, query and delete run in order; each member is {success}', async () => {
    const created = await batch([
      { method: 'POST', path: '/1.1/classes/BatchA', body: { n: 1 } },
      { method: 'POST', path: '/1.1/classes/BatchA', body: { n: 2 } },
    ]);
    assert.equal(created.status, 200);
    const [a, b] = created.body.map((r: Obj) => r.success);
    assert.deepEqual(Object.keys(a).sort(), ['createdAt', 'objectId']);
    assert.match(a.objectId, /^[0-9a-f]{24}$/);
    const res = await batch([
      { method: 'PUT', path: `/1.1/classes/BatchA/${a.objectId}`, body: { n: { __op: 'Increment', amount: 10 } } },
      { method: 'GET', path: `/1.1/classes/BatchA/${a.objectId}` },
      { method: 'GET', path: '/1.1/classes/BatchA', params: { where: { n: { $gte: 2 } }, order: 'n' } },
      { method: 'DELETE', path: `/1.1/classes/BatchA/${b.objectId}` },
      { method: 'GET', path: '/1.1/classes/BatchA', params: { count: 1, limit: 0 } },
    ]);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 5);
    assert.deepEqual(Object.keys(res.body[0].success).sort(), ['objectId', 'updatedAt']);
    assert.equal(res.body[1].success.n, 11);
    assert.deepEqual(res.body[2].success.results.map((o: Obj) => o.n), [2, 11]);
    assert.deepEqual(res.body[3], { success: {} });
    assert.deepEqual(res.body[4], { success: { results: [], count: 1 } });
  });

  test('per-item errors come back in place; the other items still run', async () => {
    const { body } = await h().client.post('/1.1/classes/BatchB', { x: 1 });
    const res = await batch([
      { method: 'GET', path: '/1.1/classes/NoSuchBatchClass/000000000000000000000000' },
      { method: 'POST', path: '/1.1/classes/BatchB', body: { x: 2 } },
      { method: 'PUT', path: '/1.1/classes/BatchB/fakeid', body: { x: 3 } },
      'not an object',
      { method: 'GET' },
      { method: 'PATCH', path: '/1.1/classes/BatchB' },
      { method: 'POST', path: '/1.1/batch', body: { requests: [] } },
      { method: 'POST', path: '/1.1/batch/save', body: { requests: [] } },
      { method: 'GET', path: '/1.1/no/such/route' },
      { method: 'POST', path: '/1.1/classes/BatchB', body: { x: 'wrong type' } },
      { method: 'GET', path: `/1.1/classes/BatchB/${body.objectId}` },
      { method: 'GET', path: '/1.1/classes/BatchB/000000000000000000000000' },
    ]);
    assert.equal(res.status, 200);
    const codes = res.body.map((r: Obj) => (r.error ? r.error.code : 'ok'));
    assert.deepEqual(codes, [101, 'ok', 1, 107, 107, 405, 1, 1, 404, 111, 'ok', 'ok']);
    assert.match(res.body[2].error.error, /Could not find object by id 'fakeid'/);
    assert.match(res.body[6].error.error, /cannot be nested/);
    assert.equal(res.body[10].success.x, 1);
    // A missing object in a batch is success: null, as in the original service.
    assert.deepEqual(res.body[11], { success: null });
    for (const r of res.body) assert.deepEqual(Object.keys(r).length, 1);
    const count = await h().client.get('/1.1/classes/BatchB', { count: 1, limit: 0 });
    assert.equal(count.body.count, 2);
  });

  test('paths work with /1.1, /1 or no version prefix, and may carry a query string', async () => {
    const res = await batch([
      { method: 'POST', path: '/1.1/classes/BatchC', body: { p: 'a' } },
      { method: 'POST', path: '/1/classes/BatchC', body: { p: 'b' } },
      { method: 'POST', path: '/classes/BatchC?fetchWhenSave=true', body: { p: 'c' } },
    ]);
    assert.ok(res.body.every((r: Obj) => r.success?.objectId));
    assert.equal(res.body[2].success.p, 'c');
    const all = await h().client.get('/1.1/classes/BatchC', { order: 'p' });
    assert.deepEqual(all.body.results.map((o: Obj) => o.p), ['a', 'b', 'c']);
  });

  test('GET items take params as JSON values: a long where, keys, order, limit', async () => {
    await batch(Array.from({ length: 5 }, (_, i) => ({ method: 'POST', path: '/1.1/classes/BatchD', body: { i, s: `v${i}` } })));
    // A where too long for a URL: the JS SDK sends such queries as a one-item batch.
    const many = Array.from({ length: 3000 }, (_, i) => `v${i}`);
    const res = await batch([{ method: 'GET', path: '/1.1/classes/BatchD', params: { where: { s: { $in: many }, i: { $lt: 4 } }, keys: 'i', order: '-i', limit: 3 } }]);
    assert.deepEqual(res.body[0].success.results.map((o: Obj) => o.i), [3, 2, 1]);
    assert.equal(res.body[0].success.results[0].s, undefined);
    // URL-style strings work too.
    const str = await batch([{ method: 'GET', path: '/1.1/classes/BatchD', params: { where: JSON.stringify({ i: 4 }) } }]);
    assert.deepEqual(str.body[0].success.results.map((o: Obj) => o.i), [4]);
    const bad = await batch([{ method: 'GET', path: '/1.1/classes/BatchD', params: { where: { i: { $bogus: 1 } } } }]);
    assert.equal(bad.body[0].error.code, 102);
  });

  test('params.fetchWhenSave and params.new return the whole object from a write', async () => {
    const res = await batch([
      { method: 'POST', path: '/1.1/classes/BatchE', body: { a: 1, b: 'x' }, params: { fetchWhenSave: true } },
      { method: 'POST', path: '/1.1/classes/BatchE', body: { a: 2, b: 'y' }, params: { new: true } },
    ]);
    assert.equal(res.body[0].success.b, 'x');
    assert.equal(res.body[1].success.a, 2);
    const put = await batch([{ method: 'PUT', path: `/1.1/classes/BatchE/${res.body[0].success.objectId}`, body: { a: { __op: 'Increment', amount: 5 } }, params: { fetchWhenSave: true } }]);
    assert.equal(put.body[0].success.a, 6);
  });

  test('DELETE with comma-joined ids (JS destroyAll) deletes them all: one {success: {}}', async () => {
    const made = await batch(Array.from({ length: 3 }, (_, i) => ({ method: 'POST', path: '/1.1/classes/BatchF', body: { i } })));
    const ids = made.body.map((r: Obj) => r.success.objectId);
    const keep = await h().client.post('/1.1/classes/BatchF', { i: 9 });
    const res = await batch([{ method: 'DELETE', path: `/1.1/classes/BatchF/${ids.join(',')}`, body: {} }]);
    assert.deepEqual(res.body, [{ success: {} }]);
    const left = await h().client.get('/1.1/classes/BatchF');
    assert.deepEqual(left.body.results.map((o: Obj) => o.objectId), [keep.body.objectId]);
  });

  test('a batch of 50 creates makes 50 objects', async () => {
    const res = await batch(Array.from({ length: 50 }, (_, i) => ({ method: 'POST', path: '/1.1/classes/BatchG', body: { i, tag: 'bulk' } })));
    assert.equal(res.body.length, 50);
    const ids = new Set(res.body.map((r: Obj) => r.success.objectId));
    assert.equal(ids.size, 50);
    const count = await h().client.get('/1.1/classes/BatchG', { count: 1, limit: 0, where: { tag: 'bulk' } });
    assert.equal(count.body.count, 50);
  });

  test('each item runs with the caller: ACL and master key apply per item', async () => {
    const hidden = await h().client.post('/1.1/classes/BatchH', { secret: 1, ACL: {} }, { master: true });
    const id = hidden.body.objectId;
    const items = [
      { method: 'GET', path: `/1.1/classes/BatchH/${id}` },
      { method: 'PUT', path: `/1.1/classes/BatchH/${id}`, body: { secret: 2 } },
      { method: 'GET', path: '/1.1/classes/BatchH', params: { count: 1 } },
    ];
    const anon = await batch(items);
    assert.deepEqual(anon.body[0], { success: null });
    assert.equal(anon.body[1].error.code, 1);
    assert.deepEqual(anon.body[2].success, { results: [], count: 0 });
    const master = await batch(items, true);
    assert.equal(master.body[0].success.secret, 1);
    assert.ok(master.body[1].success.updatedAt);
    assert.equal(master.body[2].success.count, 1);
    const check = await h().client.get(`/1.1/classes/BatchH/${id}`, undefined, { master: true });
    assert.equal(check.body.secret, 2);
  });

  test('the batch itself must be {requests: [...]} of at most 1000 items', async () => {
    for (const body of [[], { requests: {} }, { requests: 'x' }, {}, 'text']) {
      const res = await h().client.post('/1.1/batch', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 107);
    }
    const empty = await h().client.post('/1.1/batch', { requests: [] });
    assert.deepEqual([empty.status, empty.body], [200, []]);
    const huge = await h().client.post('/1.1/batch', { requests: Array.from({ length: 1001 }, () => ({ method: 'GET', path: '/1.1/date' })) });
    assert.equal(huge.status, 400);
    assert.match(huge.body.error, /at most 1000/);
    const thousand = await h().client.post('/1.1/batch', { requests: Array.from({ length: 1000 }, () => ({ method: 'GET', path: '/1.1/date' })) });
    assert.equal(thousand.body.length, 1000);
    assert.equal(thousand.body[999].success.__type, 'Date');
  });

  test('a batch needs app credentials like any request', async () => {
    const res = await h().client.request({ method: 'POST', url: '/1.1/batch', body: { requests: [] }, auth: false });
    assert.equal(res.status, 401);
  });
});
