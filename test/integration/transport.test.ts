import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { sql } from '../../src/sql/fragment.ts';
import { engines, forEachEngine, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';
import type { TestResponse } from './harness/client.ts';

function assertError(res: TestResponse, status: number, code: number, what: string): void {
  assert.equal(res.status, status, `${what}: status ${res.status} ${res.text.slice(0, 300)}`);
  assert.equal(res.body?.code, code, `${what}: body ${res.text.slice(0, 300)}`);
  assert.equal(typeof res.body.error, 'string', what);
  assert.ok(res.body.error.length > 0, what);
  assert.match(String(res.headers['content-type']), /^application\/json/, `${what}: content-type`);
}

forEachEngine('transport: text/plain fallback, CORS, compression, routing errors, limits, health', (h: () => Harness) => {
  /** A POST with a text/plain body and no credential headers: the old-browser fallback. */
  function fallback(url: string, body: Record<string, unknown>): Promise<TestResponse> {
    return h().client.request({ method: 'POST', url, auth: false, payload: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  }
  const appCreds = { _ApplicationId: TEST_KEYS.appId, _ApplicationKey: TEST_KEYS.appKey };

  async function count(className: string): Promise<number> {
    const res = await h().client.get(`/1.1/classes/${className}`, { count: 1, limit: 0 }, { master: true });
    assert.equal(res.status, 200, res.text);
    return res.body.count;
  }

  test('the /1/ prefix of older SDKs is the same API as /1.1/', async () => {
    const created = await h().client.post('/1/classes/OldPrefix', { v: 1 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const got = await h().client.get(`/1/classes/OldPrefix/${created.body.objectId}`);
    assert.equal(got.body.v, 1);
    assert.equal((await h().client.get('/1/date')).body.__type, 'Date');
    assert.equal((await h().client.get('/1/nope/x')).status, 404);
  });

  test('text/plain fallback: create; the _ keys are stripped and never stored', async () => {
    const res = await fallback('/1.1/classes/Fallback', { ...appCreds, _ApplicationProduction: 0, name: 'created', n: 1 });
    assert.equal(res.status, 201, res.text);
    const got = await h().client.get(`/1.1/classes/Fallback/${res.body.objectId}`, undefined, { master: true });
    assert.equal(got.body.name, 'created');
    for (const k of Object.keys(got.body)) assert.ok(!k.startsWith('_'), `stored key ${k}`);
  });

  test('text/plain fallback: GET of a class, with where/limit/order given in the body', async () => {
    for (const n of [1, 2, 3]) await h().client.post('/1.1/classes/FallbackFind', { n, tag: n === 2 ? 'odd-one' : 'plain' });
    const all = await fallback('/1.1/classes/FallbackFind', { ...appCreds, _method: 'GET' });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.results.map((o: { n: number }) => o.n).sort(), [1, 2, 3]);
    const filtered = await fallback('/1.1/classes/FallbackFind', { ...appCreds, _method: 'GET', where: { tag: 'plain' }, order: '-n', limit: 1 });
    assert.equal(filtered.status, 200, filtered.text);
    assert.deepEqual(filtered.body.results.map((o: { n: number }) => o.n), [3]);
    const counted = await fallback('/1.1/classes/FallbackFind', { ...appCreds, _method: 'get', count: 1, limit: 0 });
    assert.deepEqual(counted.body, { results: [], count: 3 });
  });

  test('text/plain fallback: PUT and DELETE of an object', async () => {
    const { body } = await h().client.post('/1.1/classes/FallbackWrite', { name: 'before' });
    const put = await fallback(`/1.1/classes/FallbackWrite/${body.objectId}`, { ...appCreds, _method: 'PUT', name: 'after' });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.objectId, body.objectId);
    const got = await h().client.get(`/1.1/classes/FallbackWrite/${body.objectId}`);
    assert.equal(got.body.name, 'after');
    assert.equal(got.body._method, undefined);
    const one = await fallback(`/1.1/classes/FallbackWrite/${body.objectId}`, { ...appCreds, _method: 'GET' });
    assert.equal(one.body.name, 'after');
    const del = await fallback(`/1.1/classes/FallbackWrite/${body.objectId}`, { ...appCreds, _method: 'DELETE' });
    assert.deepEqual([del.status, del.body], [200, {}]);
    const gone = await h().client.get(`/1.1/classes/FallbackWrite/${body.objectId}`);
    assert.deepEqual(gone.body, {});
  });

  test('text/plain fallback: _MasterKey grants master, _SessionToken unknown is ignored, bad keys are 401', async () => {
    const { body } = await h().client.post('/1.1/classes/FallbackSecret', { s: 1, ACL: {} }, { master: true });
    const asApp = await fallback(`/1.1/classes/FallbackSecret/${body.objectId}`, { ...appCreds, _method: 'GET' });
    assert.deepEqual(asApp.body, {});
    const asMaster = await fallback(`/1.1/classes/FallbackSecret/${body.objectId}`, { _ApplicationId: TEST_KEYS.appId, _MasterKey: TEST_KEYS.masterKey, _method: 'GET' });
    assert.equal(asMaster.body.s, 1);
    const withSession = await fallback('/1.1/classes/FallbackFind', { ...appCreds, _SessionToken: 'r:unknown', _method: 'GET' });
    assert.equal(withSession.status, 200, withSession.text);
    const bad = await fallback('/1.1/classes/FallbackSecret', { _ApplicationId: TEST_KEYS.appId, _ApplicationKey: 'wrong', name: 'x' });
    assert.deepEqual([bad.status, bad.body], [401, { code: 401, error: 'Unauthorized.' }]);
    const badMaster = await fallback(`/1.1/classes/FallbackSecret/${body.objectId}`, { _ApplicationId: TEST_KEYS.appId, _MasterKey: TEST_KEYS.appKey, _method: 'GET' });
    assert.equal(badMaster.status, 401);
    assert.equal(await count('FallbackSecret'), 1);
  });

  test('text/plain fallback: a _method that is not a string is 400 (107) and writes nothing', async () => {
    const before = await count('FallbackFind');
    for (const m of [1, true, null, {}, [], ['GET'], '', { toString: 'GET' }]) {
      const res = await fallback('/1.1/classes/FallbackFind', { ...appCreds, _method: m, n: 98 });
      assertError(res, 400, 107, `_method ${JSON.stringify(m)}`);
    }
    assert.equal(await count('FallbackFind'), before);
  });

  test('text/plain fallback: an unknown _method is 405 and writes nothing', async () => {
    const before = await count('FallbackFind');
    for (const m of ['PATCH', 'OPTIONS', 'CONNECT', 'x']) {
      const res = await fallback('/1.1/classes/FallbackFind', { ...appCreds, _method: m, n: 99 });
      assert.ok(res.status === 405 || res.status === 404, `${m}: ${res.status}`);
      assert.equal(typeof res.body.code, 'number');
    }
    assert.equal(await count('FallbackFind'), before);
  });

  test('CORS preflight allows the LeanCloud headers', async () => {
    const res = await h().server.inject({
      method: 'OPTIONS',
      url: '/1.1/classes/GameScore',
      headers: {
        origin: 'https://game.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-lc-id,x-lc-sign,content-type',
      },
    });
    assert.ok(res.statusCode === 204 || res.statusCode === 200, String(res.statusCode));
    // Default policy: any origin, never with credentials (the SDKs send headers, not cookies).
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
    for (const hdr of ['x-lc-id', 'x-lc-sign', 'x-lc-key', 'x-lc-session', 'x-lc-prod', 'x-lc-ua', 'content-type']) {
      assert.ok(allowed.includes(hdr), `allow-headers lacks ${hdr}: ${allowed.join(',')}`);
    }
    const methods = String(res.headers['access-control-allow-methods']).toUpperCase();
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) assert.ok(methods.includes(m), `allow-methods lacks ${m}`);
  });

  test('CORS: actual responses carry Access-Control-Allow-Origin, errors included', async () => {
    const ok = await h().client.get('/1.1/date', undefined, { headers: { origin: 'https://game.example.com' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['access-control-allow-origin'], '*');
    assert.equal(ok.headers['access-control-allow-credentials'], undefined);
    const denied = await h().client.get('/1.1/date', undefined, { auth: false, headers: { origin: 'https://game.example.com' } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers['access-control-allow-origin'], '*');
  });

  test('gzip, brotli and deflate responses when Accept-Encoding asks', async () => {
    const filler = 'The quick brown fox jumps over the lazy dog. '.repeat(5);
    for (let i = 0; i < 40; i++) await h().client.post('/1.1/classes/Compressed', { i, filler });
    const url = '/1.1/classes/Compressed?limit=1000&order=i';
    const headers = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
    const plain = await h().server.inject({ method: 'GET', url, headers: { ...headers, 'accept-encoding': 'identity' } });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    const expected = JSON.parse(plain.body);
    assert.equal(expected.results.length, 40);
    assert.ok(plain.rawPayload.length > 4096, 'response large enough to be compressed');
    const decoders: Record<string, (b: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync, deflate: inflateSync };
    for (const [encoding, decode] of Object.entries(decoders)) {
      const res = await h().server.inject({ method: 'GET', url, headers: { ...headers, 'accept-encoding': encoding } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.ok(res.rawPayload.length < plain.rawPayload.length / 2, `${encoding} compresses`);
      assert.deepEqual(JSON.parse(decode(res.rawPayload).toString('utf8')), expected, encoding);
    }
  });

  test('an unknown route is 404 JSON {code, error}', async () => {
    assertError(await h().client.get('/1.1/no-such-endpoint'), 404, 404, '/1.1 unknown');
    assertError(await h().client.get('/1.1/classes'), 404, 404, '/1.1/classes without a class');
    assertError(await h().client.get('/1.1/classes/A/b/c'), 404, 404, 'too many segments');
    assertError(await h().client.get('/nowhere'), 404, 404, 'outside the API');
    assertError(await h().client.post('/2.0/classes/A', { a: 1 }), 404, 404, 'unknown version');
    assertError(await h().client.get('/1.1/no-such-endpoint', undefined, { auth: false }), 401, 401, 'auth comes before routing');
  });

  test('a wrong method on a known path is 405 JSON', async () => {
    assertError(await h().client.put('/1.1/classes/GameScore', { a: 1 }), 405, 405, 'PUT on a class');
    assertError(await h().client.delete('/1.1/classes/GameScore'), 405, 405, 'DELETE on a class');
    assertError(await h().client.post('/1.1/classes/GameScore/0123456789abcdef01234567', { a: 1 }), 405, 405, 'POST on an object');
    assertError(await h().client.delete('/1.1/date'), 405, 405, 'DELETE /date');
    const patch = await h().server.inject({ method: 'PATCH', url: '/1.1/classes/GameScore', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json' }, payload: '{"a":1}' });
    assert.equal(patch.statusCode, 405, patch.body);
    assert.equal(JSON.parse(patch.body).code, 405);
    assert.equal(await count('GameScore'), 0);
  });

  test('malformed JSON is 400/107; nothing is written', async () => {
    for (const payload of ['{"a":', '{a:1}', "{'a':1}", '{"a":1}}', 'NaN', '{"a":01}', '\u0000']) {
      const res = await h().client.request({ method: 'POST', url: '/1.1/classes/Malformed', payload, headers: { 'content-type': 'application/json' } });
      assertError(res, 400, 107, JSON.stringify(payload));
    }
    const asText = await h().client.request({ method: 'POST', url: '/1.1/classes/Malformed', payload: 'name=x&n=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertError(asText, 400, 107, 'form body');
    const put = await h().client.request({ method: 'PUT', url: '/1.1/classes/Malformed/0123456789abcdef01234567', payload: '{"a":', headers: { 'content-type': 'application/json' } });
    assertError(put, 400, 107, 'malformed PUT');
    assert.equal(await count('Malformed'), 0);
  });

  test('an empty body on POST create is 400/107 and creates nothing', async () => {
    for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'text/plain' }, {} as Record<string, string>]) {
      const res = await h().client.request({ method: 'POST', url: '/1.1/classes/EmptyBody', payload: '', headers });
      assertError(res, 400, 107, `empty body ${JSON.stringify(headers)}`);
      const ws = await h().client.request({ method: 'POST', url: '/1.1/classes/EmptyBody', payload: '   \n', headers });
      assertError(ws, 400, 107, `whitespace body ${JSON.stringify(headers)}`);
    }
    const classes = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_classes WHERE name = ${'EmptyBody'}`);
    assert.equal(classes[0].n, 0);
  });

  test('a body over 20 MB is 413 JSON and nothing is written', async () => {
    const big = JSON.stringify({ blob: 'x'.repeat(21 * 1024 * 1024) });
    const res = await h().client.request({ method: 'POST', url: '/1.1/classes/TooBig', payload: big, headers: { 'content-type': 'application/json' } });
    assertError(res, 413, 413, '21 MB body');
    const asText = await h().client.request({ method: 'POST', url: '/1.1/classes/TooBig', payload: big, headers: { 'content-type': 'text/plain' } });
    assertError(asText, 413, 413, '21 MB text/plain body');
    assert.equal(await count('TooBig'), 0);
  });

  test('GET /health is ok with the engine, and needs no keys', async () => {
    const res = await h().server.inject({ method: 'GET', url: '/health' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(JSON.parse(res.body), { status: 'ok', engine: h().engine });
    const withBadKeys = await h().server.inject({ method: 'GET', url: '/health', headers: { 'x-lc-id': 'nope', 'x-lc-key': 'nope' } });
    assert.equal(withBadKeys.statusCode, 200);
  });
});

for (const engine of engines()) {
  describe(`transport: configured CORS origins and trusted proxies [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    before(async () => {
      h = await startHarness(engine, { policy: { corsOrigins: ['https://game.example.com'], trustProxy: ['127.0.0.1'] } });
    });
    after(async () => h.stop());

    test('a listed origin is allowed with credentials; any other origin gets no CORS headers', async () => {
      const listed = await h.client.get('/1.1/date', undefined, { headers: { origin: 'https://game.example.com' } });
      assert.equal(listed.headers['access-control-allow-origin'], 'https://game.example.com');
      assert.equal(listed.headers['access-control-allow-credentials'], 'true');
      const other = await h.client.get('/1.1/date', undefined, { headers: { origin: 'https://evil.example.com' } });
      assert.equal(other.status, 200);
      // Without Allow-Origin the browser shares nothing with that page (whatever else is sent).
      assert.equal(other.headers['access-control-allow-origin'], undefined);
    });

    test('X-Forwarded-Proto of a trusted proxy sets the scheme of Location', async () => {
      const res = await h.client.post('/1.1/classes/Proxied', { a: 1 }, { headers: { host: 'api.example.com', 'x-forwarded-proto': 'https' } });
      assert.equal(res.status, 201, res.text);
      assert.match(String(res.headers.location), /^https:\/\/api\.example\.com\/1\.1\/classes\/Proxied\//);
    });
  });

  describe(`transport: no proxy trusted by default [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    before(async () => {
      h = await startHarness(engine);
    });
    after(async () => h.stop());

    test('X-Forwarded-Proto from a client is ignored', async () => {
      const res = await h.client.post('/1.1/classes/Proxied', { a: 1 }, { headers: { host: 'api.example.com', 'x-forwarded-proto': 'https' } });
      assert.equal(res.status, 201, res.text);
      assert.match(String(res.headers.location), /^http:\/\/api\.example\.com\//);
    });
  });
}
