// Issue 12 item 3: the answer of one request is bounded. A batch whose answers would pass
// MAX_BATCH_ANSWER_CHARS stops there with error 154 for the rest (not run), never a 500.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_BATCH_ANSWER_CHARS } from '../../src/http/batch/answer-budget.ts';
import { forEachEngine } from './harness/engines.ts';
import { ident, sql } from '../../src/sql/fragment.ts';

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

forEachEngine('answer limits: one page of a class query is bounded', (h) => {
  const PER_OBJECT = 4 * 1024 * 1024;
  // 17 objects of 4 MiB: 68 MiB of documents, past MAX_PAGE_ANSWER_BYTES (64 MiB).
  const OBJECTS = 17;

  async function seedHugePage(): Promise<void> {
    const first = await h().client.post('/1.1/classes/HugePage', { blob: 'y'.repeat(PER_OBJECT) });
    assert.equal(first.status, 201, first.text.slice(0, 300));
    // The rest straight through SQL (copies of the first document): 16 more HTTP bodies of 4 MB
    // would only make the test slower.
    await h().db.query(sql`INSERT INTO ${ident('HugePage')} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      SELECT 'hp' || lpad(g::text, 22, '0'), now(), now(), acl, rperm, wperm, data FROM ${ident('HugePage')}, generate_series(1, ${OBJECTS - 1}::int) g
      WHERE "objectId" = ${first.body.objectId as string}`);
  }

  function sampleRss(): { stop(): number } {
    let peak = process.memoryUsage().rss;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    return { stop: () => (clearInterval(timer), Math.max(peak, process.memoryUsage().rss)) };
  }

  test(`a page of ${OBJECTS} objects of 4 MiB gets 154 instead of being read whole; a smaller page is answered`, async (t) => {
    await seedHugePage();
    const c = h().client;
    const all = await c.get('/1.1/classes/HugePage', { limit: 1000 });
    assert.equal(all.status, 400, all.text.slice(0, 300));
    assert.equal(all.body.code, 154);
    assert.match(all.body.error, /fewer objects per page/);
    // The parsing path (keys) is bounded the same way.
    const keyed = await c.get('/1.1/classes/HugePage', { limit: 1000, keys: 'blob' });
    assert.equal(keyed.body.code, 154, keyed.text.slice(0, 300));
    const ten = await c.get('/1.1/classes/HugePage', { limit: 10, order: 'objectId' });
    assert.equal(ten.status, 200, ten.text.slice(0, 300));
    assert.equal(ten.body.results.length, 10);
    assert.ok(ten.body.results.every((o: { blob: string }) => o.blob.length === PER_OBJECT));
    const counted = await c.get('/1.1/classes/HugePage', { limit: 0, count: 1 });
    assert.equal(counted.body.count, OBJECTS);

    // Five such requests at once: each is refused after at most the bound, or (a slow machine)
    // waits past the statement timeout for a slot of the heavy lane (124); none is a 500.
    const before = process.memoryUsage().rss;
    const sampler = sampleRss();
    const five = await Promise.all(Array.from({ length: 5 }, () => c.get('/1.1/classes/HugePage', { limit: 1000 })));
    const peak = sampler.stop();
    for (const r of five) assert.ok(r.body?.code === 154 || r.body?.code === 124, r.text.slice(0, 200));
    // And five pages that fit (15 objects, 60 MiB each), the worst case the bound allows.
    const sampler2 = sampleRss();
    const fits = await Promise.all(Array.from({ length: 5 }, () => c.get('/1.1/classes/HugePage', { limit: 15 })));
    const peak2 = sampler2.stop();
    for (const r of fits) assert.ok(r.status === 200 || r.body?.code === 124, r.text.slice(0, 200));
    t.diagnostic(`${h().engine}: RSS before ${Math.round(before / 1048576)} MB; peak with 5 refused huge pages ${Math.round(peak / 1048576)} MB; with 5 answered 60 MiB pages ${Math.round(peak2 / 1048576)} MB; answers ${[...five, ...fits].map((r) => r.body?.code ?? r.status).join(',')}`);
  });
  // Reading 68 MiB of documents takes seconds on a loaded CI machine: the point here is the
  // size bound (154), not the statement timeout (124), so the timeout is generous.
}, { statementTimeoutMs: 120000 });
