import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

type Obj = Record<string, any>;

forEachEngine('batch: POST /1.1/batch/save', (h) => {
  const save = (requests: unknown, master = false) => h().client.post('/1.1/batch/save', { requests }, { master });
  const get = (cls: string, id: string) => h().client.get(`/1.1/classes/${cls}/${id}`);

  test('ObjC shape: children created first, parent pointer filled from __children; result keyed by internal id', async () => {
    // What LCObject.m sends for a new parent with a new child: the initial POSTs (child first),
    // then the update requests (PUT with new: true) that carry __children.
    const res = await save([
      { method: 'POST', path: '/1.1/classes/SaveChild', body: { name: 'kid', __internalId: 'c1uuid' }, new: true },
      { method: 'POST', path: '/1.1/classes/SaveParent', body: { title: 'p', __internalId: 'p1uuid' }, new: true },
      { method: 'PUT', path: '/1.1/classes/SaveParent', body: { __internalId: 'p1uuid', __children: [{ className: 'SaveChild', cid: 'c1uuid', key: 'child' }] }, new: true },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['c1uuid', 'p1uuid']);
    const child = res.body.c1uuid;
    const parent = res.body.p1uuid;
    assert.match(child.objectId, /^[0-9a-f]{24}$/);
    assert.ok(child.createdAt);
    assert.match(parent.objectId, /^[0-9a-f]{24}$/);
    assert.ok(parent.createdAt && parent.updatedAt);
    const got = await get('SaveParent', parent.objectId);
    assert.equal(got.body.title, 'p');
    assert.deepEqual(got.body.child, { __type: 'Pointer', className: 'SaveChild', objectId: child.objectId });
    assert.equal((await get('SaveChild', child.objectId)).body.name, 'kid');
  });

  test('children are saved first even when listed after the parent; cid pointers and uuid objectIds are substituted', async () => {
    const res = await save([
      {
        method: 'POST',
        path: '/1.1/classes/SaveParent',
        body: {
          __internalId: 'p2',
          __children: [{ className: 'SaveChild', cid: 'c2', key: 'child' }],
          other: { __type: 'Pointer', className: 'SaveChild', cid: 'c3' },
          list: { __op: 'Add', objects: [{ __type: 'Pointer', className: 'SaveChild', objectId: 'c3' }] },
        },
      },
      { method: 'POST', path: '/1.1/classes/SaveChild', body: { __internalId: 'c2', n: 2 } },
      { method: 'POST', path: '/1.1/classes/SaveChild', body: { __internalId: 'c3', n: 3 } },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const got = await get('SaveParent', res.body.p2.objectId);
    assert.equal(got.body.child.objectId, res.body.c2.objectId);
    assert.equal(got.body.other.objectId, res.body.c3.objectId);
    assert.equal(got.body.other.cid, undefined);
    assert.deepEqual(got.body.list.map((p: Obj) => p.objectId), [res.body.c3.objectId]);
  });

  test('Java shape: several requests for one saved object apply in order and merge under its objectId', async () => {
    const made = await h().client.post('/1.1/classes/SaveJava', { tags: ['a'], n: 1 });
    const id = made.body.objectId;
    const path = `/1.1/classes/SaveJava/${id}`;
    const res = await save([
      { method: 'PUT', path, body: { tags: { __op: 'Add', objects: ['b'] }, __internalId: id, __children: [] }, params: {} },
      { method: 'PUT', path, body: { tags: { __op: 'Remove', objects: ['a'] }, __internalId: id } },
      { method: 'PUT', path, body: { n: { __op: 'Increment', amount: 4 }, __internalId: id }, params: { fetchWhenSave: true } },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), [id]);
    assert.equal(res.body[id].objectId, id);
    assert.equal(res.body[id].n, 5);
    assert.ok(res.body[id].updatedAt);
    const got = await get('SaveJava', id);
    assert.deepEqual(got.body.tags, ['b']);
    assert.equal(got.body.n, 5);
  });

  test('a later item for a new internal id updates the object the first one created', async () => {
    const res = await save([
      { method: 'PUT', path: '/1.1/classes/SaveTwice', body: { __internalId: 'n1', a: 1 }, new: true },
      { method: 'PUT', path: '/1.1/classes/SaveTwice', body: { __internalId: 'n1', b: { __op: 'Increment', amount: 2 } }, new: true },
    ]);
    const all = await h().client.get('/1.1/classes/SaveTwice');
    assert.equal(all.body.results.length, 1);
    assert.deepEqual([all.body.results[0].a, all.body.results[0].b], [1, 2]);
    assert.equal(res.body.n1.objectId, all.body.results[0].objectId);
  });

  test('the first failing item is the response (its status); earlier items stay applied, later ones do not run', async () => {
    await h().client.post('/1.1/classes/SaveFail', { n: 1 });
    const res = await save([
      { method: 'POST', path: '/1.1/classes/SaveFail', body: { __internalId: 'ok1', n: 2 } },
      { method: 'POST', path: '/1.1/classes/SaveFail', body: { __internalId: 'bad', n: 'not a number' } },
      { method: 'POST', path: '/1.1/classes/SaveFail', body: { __internalId: 'never', n: 3 } },
    ]);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 111);
    const all = await h().client.get('/1.1/classes/SaveFail', { order: 'n' });
    assert.deepEqual(all.body.results.map((o: Obj) => o.n), [1, 2]);
    const missing = await save([{ method: 'PUT', path: '/1.1/classes/SaveFail/000000000000000000000000', body: { n: 5 } }]);
    assert.deepEqual([missing.status, missing.body.code], [404, 1]);
  });

  test('malformed save batches are refused before anything runs', async () => {
    const cases: [unknown, number][] = [
      [{ nope: 1 }, 107],
      [[{ method: 'DELETE', path: '/1.1/classes/SaveBad/x', body: {} }], 405],
      [[{ method: 'POST', path: '/1.1/classes/SaveBad', body: { a: 1 } }], 107],
      [[{ method: 'POST', path: '/1.1/classes/SaveBad', body: { __internalId: 'a', __children: 'x' } }], 107],
      [[{ method: 'POST', path: '/1.1/classes/SaveBad', body: { __internalId: 'a', __children: [{ className: 'C', cid: 'b', key: 'k' }] } }, { method: 'POST', path: '/1.1/classes/SaveBad', body: { __internalId: 'b', __children: [{ className: 'C', cid: 'a', key: 'k' }] } }], 1],
    ];
    for (const [requests, code] of cases) {
      const res = Array.isArray(requests) ? await save(requests) : await h().client.post('/1.1/batch/save', requests);
      assert.equal(res.status >= 400, true, JSON.stringify(requests));
      assert.equal(res.body.code, code, JSON.stringify(requests));
    }
    const none = await h().client.get('/1.1/classes/SaveBad');
    assert.deepEqual(none.body.results, []);
  });

  test('a child that is neither saved nor in the batch is refused (106)', async () => {
    const res = await save([{ method: 'POST', path: '/1.1/classes/SaveOrphan', body: { __internalId: 'o', __children: [{ className: 'C', cid: 'not-an-id-uuid', key: 'k' }] } }]);
    assert.deepEqual([res.status, res.body.code], [400, 106]);
  });

  test('ACLs apply: an object only the master may write is refused without the master key', async () => {
    const hidden = await h().client.post('/1.1/classes/SaveAcl', { v: 1, ACL: {} }, { master: true });
    const id = hidden.body.objectId;
    const body = [{ method: 'PUT', path: `/1.1/classes/SaveAcl/${id}`, body: { v: 2, __internalId: id } }];
    const anon = await save(body);
    assert.equal(anon.body.code, 1);
    assert.equal(anon.status >= 400, true);
    const master = await save(body, true);
    assert.equal(master.status, 200);
    assert.ok(master.body[id].updatedAt);
  });
});
