import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

const NOT_MASTER = { code: 1, error: 'The request must be signed by master key.' };

forEachEngine('admin endpoint: indexes', (h) => {
  test('create, list and drop an index over HTTP; master key only; bad input is 400 and changes nothing', async () => {
    const c = h().client;
    assert.equal((await c.post('/1.1/classes/AdmIdx', { score: 3, tags: ['a'], meta: { x: 1 } })).status, 201);
    for (const res of [
      await c.get('/1.1/larder/indexes'),
      await c.post('/1.1/larder/classes/AdmIdx/indexes', { field: 'score' }),
      await c.request({ method: 'DELETE', url: '/1.1/larder/classes/AdmIdx/indexes/score' }),
    ]) assert.deepEqual({ status: res.status, body: res.body }, { status: 403, body: NOT_MASTER });

    const created = await c.post('/1.1/larder/classes/AdmIdx/indexes', { field: 'score' }, { master: true });
    assert.equal(created.status, 201);
    assert.equal(created.body.outcome, 'created');
    assert.equal(created.body.index.type, 'Number');
    const again = await c.post('/1.1/larder/classes/AdmIdx/indexes', { field: 'score' }, { master: true });
    assert.deepEqual([again.status, again.body.outcome], [200, 'exists']);
    const builtIn = await c.post('/1.1/larder/classes/AdmIdx/indexes', { field: 'createdAt' }, { master: true });
    assert.deepEqual([builtIn.status, builtIn.body.outcome], [200, 'builtIn']);
    assert.equal((await c.post('/1.1/larder/classes/AdmIdx/indexes', { field: 'tags' }, { master: true })).body.index.using, 'gin');

    const list = await c.get('/1.1/larder/indexes', { className: 'AdmIdx' }, { master: true });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.results.map((i: { field: string; state: string }) => [i.field, i.state]), [['score', 'ready'], ['tags', 'ready']]);

    for (const [body, code] of [[{}, 107], [{ field: 3 }, 107], [{ field: 'score', x: 1 }, 107], [[], 107], [{ field: 'meta' }, 102], [{ field: 'nope' }, 102]] as const) {
      const res = await c.post('/1.1/larder/classes/AdmIdx/indexes', body, { master: true });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, code, JSON.stringify(res.body));
    }
    const unknownClass = await c.post('/1.1/larder/classes/NoSuchAdmIdx/indexes', { field: 'x' }, { master: true });
    assert.equal(unknownClass.status, 404);
    assert.equal((await c.get('/1.1/larder/indexes', { className: 'NoSuchAdmIdx' }, { master: true })).status, 404);

    const dropped = await c.request({ method: 'DELETE', url: '/1.1/larder/classes/AdmIdx/indexes/score', master: true });
    assert.equal(dropped.status, 200);
    assert.equal(dropped.body.field, 'score');
    const gone = await c.request({ method: 'DELETE', url: '/1.1/larder/classes/AdmIdx/indexes/score', master: true });
    assert.equal(gone.status, 400);
    assert.deepEqual((await c.get('/1.1/larder/indexes', { className: 'AdmIdx' }, { master: true })).body.results.map((i: { field: string }) => i.field), ['tags']);
  });
});
