import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

forEachEngine('objects: create, get, update, delete', (h) => {
  test('create returns 201, Location and {objectId, createdAt}', async () => {
    const res = await h().client.post('/1.1/classes/GameScore', { score: 1337, playerName: 'Sean Plott', cheatMode: false });
    assert.equal(res.status, 201);
    assert.match(res.body.objectId, /^[0-9a-f]{24}$/);
    assert.match(res.body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'objectId']);
    assert.match(String(res.headers.location), new RegExp(`/1.1/classes/GameScore/${res.body.objectId}$`));
  });

  test('fetchWhenSave and new=true return the whole object', async () => {
    for (const q of [{ fetchWhenSave: 'true' }, { new: 'true' }]) {
      const res = await h().client.request({ method: 'POST', url: '/1.1/classes/GameScore', body: { score: 1 }, query: q });
      assert.equal(res.status, 201);
      assert.equal(res.body.score, 1);
      assert.equal(res.body.createdAt, res.body.updatedAt);
    }
  });

  test('get returns the object; unknown id is 200 {}; unknown class 404/101', async () => {
    const { body } = await h().client.post('/1.1/classes/GameScore', { score: 7, tags: ['a'] });
    const got = await h().client.get(`/1.1/classes/GameScore/${body.objectId}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.score, 7);
    assert.deepEqual(got.body.tags, ['a']);
    assert.equal(got.body.objectId, body.objectId);
    assert.equal(typeof got.body.updatedAt, 'string');
    assert.equal(got.body.ACL, undefined);
    const missing = await h().client.get('/1.1/classes/GameScore/000000000000000000000000');
    assert.deepEqual([missing.status, missing.body], [200, {}]);
    const noClass = await h().client.get('/1.1/classes/NoSuchClass/000000000000000000000000');
    assert.equal(noClass.status, 404);
    assert.equal(noClass.body.code, 101);
  });

  test('update returns {updatedAt, objectId} and changes only the given fields', async () => {
    const { body } = await h().client.post('/1.1/classes/GameScore', { score: 1, name: 'x' });
    const put = await h().client.put(`/1.1/classes/GameScore/${body.objectId}`, { score: 2 });
    assert.equal(put.status, 200);
    assert.equal(put.body.objectId, body.objectId);
    assert.ok(put.body.updatedAt > body.createdAt || put.body.updatedAt === body.createdAt);
    const got = await h().client.get(`/1.1/classes/GameScore/${body.objectId}`);
    assert.equal(got.body.score, 2);
    assert.equal(got.body.name, 'x');
  });

  test('conditional update with a non-matching where is 305 and changes nothing', async () => {
    const { body } = await h().client.post('/1.1/classes/GameScore', { score: 5 });
    const put = await h().client.request({ method: 'PUT', url: `/1.1/classes/GameScore/${body.objectId}`, body: { score: 9 }, query: { where: { score: -1 } } });
    assert.equal(put.status, 400);
    assert.equal(put.body.code, 305);
    const got = await h().client.get(`/1.1/classes/GameScore/${body.objectId}`);
    assert.equal(got.body.score, 5);
    const ok = await h().client.request({ method: 'PUT', url: `/1.1/classes/GameScore/${body.objectId}`, body: { score: 9 }, query: { where: { score: 5 } } });
    assert.equal(ok.status, 200);
  });

  test('delete removes the object; conditional delete that does not match is 305', async () => {
    const { body } = await h().client.post('/1.1/classes/GameScore', { score: 3 });
    const no = await h().client.request({ method: 'DELETE', url: `/1.1/classes/GameScore/${body.objectId}`, query: { where: { score: 4 } } });
    assert.equal(no.body.code, 305);
    const del = await h().client.delete(`/1.1/classes/GameScore/${body.objectId}`);
    assert.deepEqual([del.status, del.body], [200, {}]);
    const got = await h().client.get(`/1.1/classes/GameScore/${body.objectId}`);
    assert.deepEqual(got.body, {});
  });

  test('a field type is locked by its first write (111)', async () => {
    await h().client.post('/1.1/classes/Typed', { n: 1 });
    const bad = await h().client.post('/1.1/classes/Typed', { n: 'one' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 111);
  });

  test('find returns results in creation order, with count', async () => {
    for (const i of [1, 2, 3]) await h().client.post('/1.1/classes/Listed', { i });
    const res = await h().client.get('/1.1/classes/Listed', { count: 1, where: { i: { $gte: 2 } } });
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 2);
    assert.deepEqual(res.body.results.map((r: { i: number }) => r.i), [2, 3]);
  });

  test('GET /1.1/date returns a Date', async () => {
    const res = await h().client.get('/1.1/date');
    assert.equal(res.body.__type, 'Date');
    assert.match(res.body.iso, /Z$/);
  });
});
