// Issue 12 item 3: the answer of one request is bounded. A batch whose answers would pass
// MAX_BATCH_ANSWER_CHARS stops there with error 154 for the rest (not run), never a 500.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_BATCH_ANSWER_CHARS } from '../../src/batch/answer-budget.ts';
import { forEachEngine } from './harness/engines.ts';

const OBJECT_CHARS = 4 * 1024 * 1024;

forEachEngine('answer limits: a batch answer is bounded', (h) => {
  test('25 GETs of a 4 MB object: the items that fit are answered, the rest get 154 and are not run', async () => {
    const c = h().client;
    const big = await c.post('/1.1/classes/Huge', { blob: 'x'.repeat(OBJECT_CHARS) });
    assert.equal(big.status, 201, big.text.slice(0, 300));
    const requests = [
      ...Array.from({ length: 25 }, () => ({ method: 'GET', path: `/1.1/classes/Huge/${big.body.objectId}` })),
      // A write after the bound is not run either.
      { method: 'POST', path: '/1.1/classes/AfterBound', body: { n: 1 } },
    ];
    const res = await c.post('/1.1/batch', { requests });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.ok(res.text.length <= MAX_BATCH_ANSWER_CHARS + 1000, `answer of ${res.text.length} characters`);
    const answered = res.body.filter((r: { success?: { blob?: string } }) => r.success?.blob?.length === OBJECT_CHARS).length;
    const refused = res.body.filter((r: { error?: { code: number } }) => r.error?.code === 154).length;
    assert.equal(answered + refused, requests.length);
    assert.equal(answered, Math.floor(MAX_BATCH_ANSWER_CHARS / (OBJECT_CHARS + 100)));
    assert.match(res.body.at(-1).error.error, /not answered/);
    const after = await c.get('/1.1/classes/AfterBound', { count: 1, limit: 0 });
    assert.equal(after.body.count, 0, 'the write after the bound did not run');
  });

  test('a batch under the bound is answered whole, as before', async () => {
    const c = h().client;
    const made = await c.post('/1.1/batch', { requests: [{ method: 'POST', path: '/1.1/classes/Small', body: { n: 1 } }, { method: 'GET', path: '/1.1/classes/Small', params: { where: { n: 1 } } }] });
    assert.equal(made.status, 200);
    assert.ok(made.body[0].success.objectId);
    assert.equal(made.body[1].success.results.length, 1);
  });
});
