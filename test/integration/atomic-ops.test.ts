import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

forEachEngine('atomic operations over HTTP', (h) => {
  const put = (id: string, body: unknown, query?: Record<string, string>) =>
    h().client.request({ method: 'PUT', url: `/1.1/classes/Counter/${id}`, body, query });
  const get = async (id: string) => (await h().client.get(`/1.1/classes/Counter/${id}`)).body;

  test('50 concurrent Increments lose nothing', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', { n: 0 });
    const results = await Promise.all(Array.from({ length: 50 }, () => put(body.objectId, { n: { __op: 'Increment', amount: 1 } })));
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)?.body));
    assert.equal((await get(body.objectId)).n, 50);
  });

  test('concurrent Add, AddUnique and Remove are all applied', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', { list: [], set: [], drop: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => put(body.objectId, { list: { __op: 'Add', objects: [i] } })),
      ...Array.from({ length: 20 }, (_, i) => put(body.objectId, { set: { __op: 'AddUnique', objects: [i % 5] } })),
      ...Array.from({ length: 10 }, (_, i) => put(body.objectId, { drop: { __op: 'Remove', objects: [i + 1] } })),
    ]);
    const obj = await get(body.objectId);
    assert.deepEqual([...obj.list].sort((a: number, b: number) => a - b), Array.from({ length: 20 }, (_, i) => i));
    assert.deepEqual([...obj.set].sort(), [0, 1, 2, 3, 4]);
    assert.deepEqual(obj.drop, []);
  });

  test('concurrent BitOr sets every bit', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', { flags: 0 });
    await Promise.all(Array.from({ length: 16 }, (_, i) => put(body.objectId, { flags: { __op: 'BitOr', value: 1 << i } })));
    assert.equal((await get(body.objectId)).flags, 0xffff);
    await put(body.objectId, { flags: { __op: 'BitAnd', value: 0xff } });
    await put(body.objectId, { flags: { __op: 'BitXor', value: 0x0f } });
    assert.equal((await get(body.objectId)).flags, 0xf0);
  });

  test('ops on missing fields start from zero / empty; Decrement and Delete', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', {
      a: { __op: 'Increment', amount: 5 },
      b: { __op: 'BitAnd', value: 1 },
      c: { __op: 'BitOr', value: 1 },
      d: { __op: 'AddUnique', objects: [1, 1, 2] },
      e: { __op: 'Remove', objects: [1] },
    });
    assert.equal(body.objectId.length, 24);
    let obj = await get(body.objectId);
    assert.deepEqual([obj.a, obj.b, obj.c, obj.d, obj.e], [5, 0, 1, [1, 2], []]);
    await put(body.objectId, { a: { __op: 'Decrement', amount: 2 }, e: { __op: 'Delete' } });
    obj = await get(body.objectId);
    assert.equal(obj.a, 3);
    assert.equal('e' in obj, false);
  });

  test('dot-notation updates nested objects, creating missing parents', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', { profile: { name: 'x', stats: { score: 1 } } });
    await put(body.objectId, { 'profile.stats.score': { __op: 'Increment', amount: 2 }, 'profile.city': 'Paris', 'extra.deep.value': 7 });
    const obj = await get(body.objectId);
    assert.deepEqual(obj.profile, { name: 'x', stats: { score: 3 }, city: 'Paris' });
    assert.deepEqual(obj.extra, { deep: { value: 7 } });
  });

  test('fetchWhenSave on update returns only the changed fields', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', { n: 1, other: 'keep' });
    const res = await put(body.objectId, { n: { __op: 'Increment', amount: 1 } }, { fetchWhenSave: 'true' });
    assert.equal(res.body.n, 2);
    assert.equal(res.body.other, undefined);
    assert.equal(res.body.objectId, body.objectId);
    assert.equal(typeof res.body.updatedAt, 'string');
  });

  test('Increment on a String field is refused with 111 and changes nothing', async () => {
    const { body } = await h().client.post('/1.1/classes/Counter', { label: 'x' });
    const res = await put(body.objectId, { label: { __op: 'Increment', amount: 1 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 111);
    assert.equal((await get(body.objectId)).label, 'x');
  });
});
