import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

forEachEngine('advanced types, names and limits', (h) => {
  test('every advanced type round-trips', async () => {
    const c = h().client;
    const target = await c.post('/1.1/classes/Target', { x: 1 });
    const value = {
      date: { __type: 'Date', iso: '2011-08-21T18:02:52.249Z' },
      bytes: { __type: 'Bytes', base64: 'VGhpcyBpcyBhbiBlbmNvZGVkIHN0cmluZw==' },
      ptr: { __type: 'Pointer', className: 'Target', objectId: target.body.objectId },
      geo: { __type: 'GeoPoint', latitude: 40.0, longitude: -30.0 },
      nested: { a: [1, { b: null }], s: 'x' },
      arr: [1, 'two', { three: 3 }, [4]],
      flag: true,
      nothing: null,
      num: 1.5,
    };
    const created = await c.post('/1.1/classes/Typed', value);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const got = await c.get(`/1.1/classes/Typed/${created.body.objectId}`);
    for (const [k, v] of Object.entries(value)) assert.deepEqual(got.body[k], v, k);
    const rel = await c.post('/1.1/classes/Typed2', { r: { __op: 'AddRelation', objects: [value.ptr] } });
    const gotRel = await c.get(`/1.1/classes/Typed2/${rel.body.objectId}`);
    assert.deepEqual(gotRel.body.r, { __type: 'Relation', className: 'Target' });
  });

  test('dates are normalised to UTC milliseconds', async () => {
    const res = await h().client.post('/1.1/classes/Dated', { d: { __type: 'Date', iso: '2020-01-02T03:04:05+02:00' } }, { query: { fetchWhenSave: 'true' } });
    assert.deepEqual(res.body.d, { __type: 'Date', iso: '2020-01-02T01:04:05.000Z' });
  });

  test('GeoPoints are range-checked (302); a class may have several', async () => {
    const bad = await h().client.post('/1.1/classes/Geo', { g: { __type: 'GeoPoint', latitude: 91, longitude: 0 } });
    assert.equal(bad.body.code, 302);
    const ok = await h().client.post('/1.1/classes/Geo', { g: { __type: 'GeoPoint', latitude: 10, longitude: 10 } });
    assert.equal(ok.status, 201);
    const second = await h().client.post('/1.1/classes/Geo', { h: { __type: 'GeoPoint', latitude: 1, longitude: 1 } });
    assert.equal(second.status, 201);
  });

  test('reserved fields cannot be set; bad names get 103/105/121', async () => {
    const c = h().client;
    for (const body of [{ objectId: 'x' }, { createdAt: 'x' }, { updatedAt: 'x' }]) {
      const res = await c.post('/1.1/classes/Named', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 105);
    }
    assert.equal((await c.post('/1.1/classes/1abc', { a: 1 })).body.code, 103);
    assert.equal((await c.post('/1.1/classes/_Secret', { a: 1 })).body.code, 103);
    assert.equal((await c.post('/1.1/classes/Named', { 'bad-key': 1 })).body.code, 105);
    assert.equal((await c.post('/1.1/classes/Named', { a: { 'x.y': 1 } })).body.code, 121);
    assert.equal((await c.post('/1.1/classes/Named', { a: { $x: 1 } })).body.code, 121);
    assert.equal((await c.post('/1.1/classes/Named', { 'a.b': 1 })).body.code, 105);
    assert.equal((await c.post('/1.1/classes/Named', { a: { __type: 'Weird' } })).status, 400);
    const count = await c.get('/1.1/classes/Named', { count: 1, limit: 0 });
    assert.equal(count.body.count, 0);
  });

  test('at most 300 fields per class', async () => {
    const c = h().client;
    const body: Record<string, number> = {};
    for (let i = 0; i < 300; i++) body[`f${i}`] = i;
    assert.equal((await c.post('/1.1/classes/Wide', body)).status, 201);
    const res = await c.post('/1.1/classes/Wide', { oneMore: 1 });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /300/);
  });

  test('at most 500 classes per app', async () => {
    const c = h().client;
    const { n } = (await h().db.query<{ n: number }>(sqlCount()))[0];
    for (let i = n; i < 500; i++) {
      const r = await c.post(`/1.1/classes/Many${i}`, { a: 1 });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const over = await c.post('/1.1/classes/OneTooMany', { a: 1 });
    assert.equal(over.status, 400);
    assert.match(over.body.error, /500/);
    assert.deepEqual((await c.get('/1.1/classes/OneTooMany/000000000000000000000000')).body.code, 101);
  });
});

import { sql } from '../../src/sql/fragment.ts';
function sqlCount() {
  return sql`SELECT count(*)::int AS n FROM _larder_classes`;
}
