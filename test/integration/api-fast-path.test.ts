// The API fast path (src/http/api-fast-path.ts) answers the common object requests before
// Fastify routes them; it must be indistinguishable from the Fastify route. Every request here
// goes over a real socket to two servers on the same database, one with the fast path and one
// without, and must get the same status, headers (but Date) and body; ids and times made by
// writes are masked. Fastify's diagnostics channel tells which requests the fast path took.
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { comparable, onHandler, routed, same, send, startPair, stopPair, type Pair, type Sent } from './harness/fast-path-pair.ts';
import { apiFastPath } from '../../src/http/api-fast-path.ts';
import { DEFAULT_HTTP_POLICY } from '../../src/http/http-policy.ts';
import { createRateLimiter, NO_RATE_LIMITS } from '../../src/http/rate-limit.ts';
import { RouteTable } from '../../src/http/route-table.ts';
import { createLogger } from '../../src/log.ts';

const KEY = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const JSON_KEY = { ...KEY, 'content-type': 'application/json' };
const MASTER = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master` };

for (const engine of engines()) {
  describe(`API fast path answers as the Fastify route does [${engine}]`, () => {
    let p: Pair;
    let itemId = '';
    let privateId = '';
    let session = '';
    let userId = '';
    before(async () => {
      diagnostics.subscribe('tracing:fastify.request.handler:start', onHandler);
      p = await startPair(engine);
      const c = p.fast.client;
      const user = await c.post('/1.1/users', { username: 'fastpath', password: 'secret-pw' });
      assert.equal(user.status, 201, user.text);
      session = user.body.sessionToken;
      userId = user.body.objectId;
      for (let i = 0; i < 30; i++) {
        const r = await c.post('/1.1/classes/Item', { n: i, score: (i * 7) % 13, name: `item ${i}`, pad: 'x'.repeat(60), owner: { __type: 'Pointer', className: '_User', objectId: userId } }, { master: true });
        assert.equal(r.status, 201, r.text);
        if (i === 0) itemId = r.body.objectId;
      }
      const priv = await c.post('/1.1/classes/Item', { n: 100, ACL: { [userId]: { read: true, write: true } } }, { master: true });
      privateId = priv.body.objectId;
    });
    after(async () => {
      diagnostics.unsubscribe('tracing:fastify.request.handler:start', onHandler);
      await stopPair(p);
    });

    const range = `where=${encodeURIComponent(JSON.stringify({ n: { $gte: 3, $lt: 9 } }))}&order=-score&limit=5`;
    /**
     * [what, request, who answers: the fast path ('fast'), Fastify sending the fast path's
     * outcome ('handoff'), or Fastify alone: the fast path declines it before reading anything]
     */
    const cases: [string, () => Sent, 'fast' | 'handoff' | 'fastify'][] = [
      ['get by id', () => ({ method: 'GET', path: `/1.1/classes/Item/${itemId}`, headers: KEY }), 'fast'],
      ['get by id under /1/ with keys and include', () => ({ method: 'GET', path: `/1/classes/Item/${itemId}?keys=n,owner&include=owner`, headers: KEY }), 'fast'],
      ['get of a missing object', () => ({ method: 'GET', path: '/1.1/classes/Item/000000000000000000000000', headers: KEY }), 'fast'],
      ['get in a missing class', () => ({ method: 'GET', path: `/1.1/classes/NoSuchClass/${itemId}`, headers: KEY }), 'fast'],
      ['range query', () => ({ method: 'GET', path: `/1.1/classes/Item?${range}`, headers: KEY }), 'fast'],
      ['range query with include', () => ({ method: 'GET', path: `/1.1/classes/Item?${range}&include=owner`, headers: KEY }), 'fast'],
      ['count with $in', () => ({ method: 'GET', path: `/1.1/classes/Item?count=1&limit=0&where=${encodeURIComponent('{"n":{"$in":[1,2,3]}}')}`, headers: KEY }), 'fast'],
      ['a repeated query parameter and + for space', () => ({ method: 'GET', path: '/1.1/classes/Item?limit=1&limit=2&where=%7B%22name%22:%22item+1%22%7D', headers: KEY }), 'fast'],
      ['a large answer without Accept-Encoding', () => ({ method: 'GET', path: '/1.1/classes/Item?limit=30&order=n', headers: KEY }), 'fast'],
      ['a large answer with Accept-Encoding: compressed by Fastify', () => ({ method: 'GET', path: '/1.1/classes/Item?limit=30&order=n', headers: { ...KEY, 'accept-encoding': 'gzip, deflate, br' } }), 'handoff'],
      ['a large create answer with Accept-Encoding, the body read', () => ({ method: 'POST', path: '/1.1/classes/Item?fetchWhenSave=true', headers: { ...JSON_KEY, 'accept-encoding': 'br' }, body: JSON.stringify({ n: 503, pad: 'z'.repeat(1500) }) }), 'handoff'],
      ['a large error with Accept-Encoding', () => ({ method: 'GET', path: `/1.1/classes/Item?where=${encodeURIComponent(JSON.stringify({ ['k'.repeat(1100)]: { $nope: 1 } }))}`, headers: { ...KEY, 'accept-encoding': 'gzip' } }), 'fast'],
      ['a small answer with Accept-Encoding', () => ({ method: 'GET', path: `/1.1/classes/Item/${itemId}?keys=n`, headers: { ...KEY, 'accept-encoding': 'gzip' } }), 'fast'],
      ['a bad where', () => ({ method: 'GET', path: '/1.1/classes/Item?where=%7Bnot-json', headers: KEY }), 'fast'],
      ['an unknown operator', () => ({ method: 'GET', path: `/1.1/classes/Item?where=${encodeURIComponent('{"n":{"$nope":1}}')}`, headers: KEY }), 'fast'],
      ['a wrong key', () => ({ method: 'GET', path: `/1.1/classes/Item/${itemId}`, headers: { ...KEY, 'x-lc-key': 'wrong' } }), 'fast'],
      ['no keys at all', () => ({ method: 'GET', path: `/1.1/classes/Item/${itemId}` }), 'fast'],
      ['an object the caller may not read', () => ({ method: 'GET', path: `/1.1/classes/Item/${privateId}`, headers: KEY }), 'fast'],
      ['an object the caller may not write', () => ({ method: 'PUT', path: `/1.1/classes/Item/${privateId}`, headers: JSON_KEY, body: '{"n":1}' }), 'fast'],
      ['the owner reads it with a session', () => ({ method: 'GET', path: `/1.1/classes/Item/${privateId}`, headers: { ...KEY, 'x-lc-session': session } }), 'fast'],
      ['a create with an ACL', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: JSON_KEY, body: JSON.stringify({ n: 500, score: 1, name: 'new', a: true, b: [1], c: { d: 1 }, ACL: { '*': { read: true } } }) }), 'fast'],
      ['a create with fetchWhenSave', () => ({ method: 'POST', path: '/1.1/classes/Item?fetchWhenSave=true', headers: { ...JSON_KEY, 'content-type': 'application/json; charset=utf-8' }, body: '{"n":501}' }), 'fast'],
      ['an increment', () => ({ method: 'PUT', path: `/1.1/classes/Item/${itemId}`, headers: JSON_KEY, body: '{"score":{"__op":"Increment","amount":1}}' }), 'fast'],
      ['an update of a missing object', () => ({ method: 'PUT', path: '/1.1/classes/Item/000000000000000000000000', headers: JSON_KEY, body: '{"n":1}' }), 'fast'],
      ['bad JSON: 107 and the connection closed', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: JSON_KEY, body: '{"n":' }), 'fast'],
      ['JSON nested too deep', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: JSON_KEY, body: `${'['.repeat(70)}${']'.repeat(70)}` }), 'fast'],
      ['an empty body with a JSON type', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: JSON_KEY, body: '' }), 'fast'],
      ['a body over the limit', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: JSON_KEY, body: JSON.stringify({ pad: 'y'.repeat(9000) }) }), 'fastify'],
      ['a chunked body', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: JSON_KEY, body: '{"n":600}', chunked: true }), 'fastify'],
      ['a compressed body', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: { ...JSON_KEY, 'content-encoding': 'gzip' }, body: gzipSync('{"n":601}') }), 'fastify'],
      ['the text/plain fallback', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ _method: 'GET', _ApplicationId: TEST_KEYS.appId, _ApplicationKey: TEST_KEYS.appKey, limit: 1 }) }), 'fastify'],
      ['a JSON body with the fallback keys', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ _method: 'GET', _ApplicationId: TEST_KEYS.appId, _ApplicationKey: TEST_KEYS.appKey, limit: 1, keys: 'n' }) }), 'fast'],
      ['a body without a type', () => ({ method: 'POST', path: '/1.1/classes/Item', headers: KEY, body: '{"n":602}' }), 'fastify'],
      ['a delete', () => ({ method: 'DELETE', path: '/1.1/classes/Item/000000000000000000000000', headers: KEY }), 'fast'],
      ['a delete with a JSON body', () => ({ method: 'DELETE', path: '/1.1/classes/Item/000000000000000000000000', headers: JSON_KEY, body: '{}' }), 'fast'],
      ['a very long id', () => ({ method: 'GET', path: `/1.1/classes/Item/${'a'.repeat(500)}`, headers: KEY }), 'fast'],
      ['an id longer than the router takes', () => ({ method: 'GET', path: `/1.1/classes/Item/${'a'.repeat(3000)}`, headers: KEY }), 'fastify'],
      ['an encoded slash', () => ({ method: 'GET', path: '/1.1/classes/Item%2F..%2FOther', headers: KEY }), 'fastify'],
      ['a .. segment', () => ({ method: 'GET', path: '/1.1/classes/../classes/Item', headers: KEY }), 'fastify'],
      ['a trailing slash', () => ({ method: 'GET', path: `/1.1/classes/Item/${itemId}/`, headers: KEY }), 'fastify'],
      ['a doubled slash', () => ({ method: 'GET', path: '//1.1/classes/Item', headers: KEY }), 'fastify'],
      ['a fragment', () => ({ method: 'GET', path: '/1.1/classes/Item?limit=1#x', headers: KEY }), 'fastify'],
      ['a bad class name', () => ({ method: 'GET', path: '/1.1/classes/1Item', headers: KEY }), 'fastify'],
      ['a built-in class name', () => ({ method: 'GET', path: '/1.1/classes/_Session', headers: KEY }), 'fast'],
      ['PATCH: 405 from the route', () => ({ method: 'PATCH', path: `/1.1/classes/Item/${itemId}`, headers: JSON_KEY, body: '{}' }), 'fastify'],
      ['HEAD', () => ({ method: 'HEAD', path: `/1.1/classes/Item/${itemId}`, headers: KEY }), 'fastify'],
      ['a CORS preflight', () => ({ method: 'OPTIONS', path: '/1.1/classes/Item', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-lc-id' } }), 'fastify'],
      ['an origin header', () => ({ method: 'GET', path: `/1.1/classes/Item/${itemId}`, headers: { ...KEY, origin: 'https://app.example.com' } }), 'fast'],
      ['users/me with a session', () => ({ method: 'GET', path: '/1.1/users/me', headers: { ...KEY, 'x-lc-session': session } }), 'fast'],
      ['users/me without one', () => ({ method: 'GET', path: '/1.1/users/me', headers: KEY }), 'fast'],
      ['a login with a wrong password', () => ({ method: 'POST', path: '/1.1/login', headers: JSON_KEY, body: '{"username":"fastpath","password":"nope"}' }), 'fast'],
      ['a batch of creates', () => ({ method: 'POST', path: '/1.1/batch', headers: JSON_KEY, body: JSON.stringify({ requests: [0, 1, 2].map((i) => ({ method: 'POST', path: '/1.1/classes/Item', body: { n: 700 + i } })) }) }), 'fast'],
      ['an unknown route under a covered prefix', () => ({ method: 'GET', path: '/1.1/users/me/extra', headers: KEY }), 'fastify'],
      ['a path the fast path does not cover', () => ({ method: 'GET', path: '/1.1/date', headers: KEY }), 'fastify'],
    ];
    /** The fast path's gate alone: false when it leaves a request to Fastify untouched. */
    const takes = (r: Sent): boolean => {
      const gate = apiFastPath({ app: p.fast.app, routes: new RouteTable([]), limiter: createRateLimiter(NO_RATE_LIMITS), policy: DEFAULT_HTTP_POLICY, requestLog: false, bodyLimitBytes: 8192, logger: createLogger('silent'), families: new Set() }, new WeakMap());
      const headers: Record<string, string> = { ...(r.headers ?? {}) };
      if (r.body !== undefined && !r.chunked) headers['content-length'] = String(Buffer.byteLength(r.body));
      if (r.chunked) headers['transfer-encoding'] = 'chunked';
      const req = { method: r.method, url: r.path, headers, socket: {} } as unknown as http.IncomingMessage;
      assert.ok(gate, 'the fast path is on with the default policy');
      return gate(req, {} as http.ServerResponse, () => undefined);
    };
    for (const [what, make, who] of cases) {
      test(what, async () => {
        const r = make();
        if (who === 'fastify') assert.equal(takes(r), false, 'the fast path declines it');
        const res = await same(p, r);
        if (who !== 'fastify') assert.equal(res.routed ? 'handoff' : 'fast', who, `routed by Fastify: ${res.routed}; ${res.got.status} ${res.got.body.slice(0, 200)}`);
      });
    }

    test('the fast path counts its answers in the request metrics, by family', async () => {
      const metrics = async () => (await p.fast.server.inject({ method: 'GET', url: '/metrics', headers: MASTER })).body;
      const count = (text: string) => Number(/^larder_http_requests_total\{family="classes",method="GET",status="200"\} (\d+)/m.exec(text)?.[1] ?? 0);
      const before = count(await metrics());
      const r = await send(p.fastBase, p.fastAgent, { method: 'GET', path: `/1.1/classes/Item/${itemId}`, headers: KEY });
      assert.equal(r.status, 200);
      assert.equal(count(await metrics()), before + 1);
    });
  });
}

for (const engine of engines()) {
  describe(`API fast path: per-client limits as the route counts them [${engine}]`, () => {
    let p: Pair;
    before(async () => {
      p = await startPair(engine, { policy: { corsOrigins: '*', trustProxy: false, rateLimits: { perIp: 3, perSession: 0, windowMs: 60_000 } } });
    });
    after(async () => stopPair(p));

    test('the same answers up to the limit, then the same 429 with Retry-After; the master key goes on', async () => {
      for (let i = 0; i < 5; i++) {
        const plain = await send(p.plainBase, p.plainAgent, { method: 'GET', path: '/1.1/classes/Item?limit=1', headers: KEY });
        const fast = await send(p.fastBase, p.fastAgent, { method: 'GET', path: '/1.1/classes/Item?limit=1', headers: KEY });
        assert.equal(fast.status, i < 3 ? 200 : 429, fast.body);
        const retry = [Number(plain.headers['retry-after'] ?? 0), Number(fast.headers['retry-after'] ?? 0)];
        assert.ok(Math.abs(retry[0] - retry[1]) <= 1, `Retry-After ${retry.join(' vs ')}`);
        if (i >= 3) assert.ok(retry[1] >= 1);
        const { 'retry-after': _a, ...plainRest } = comparable(plain).headers;
        const { 'retry-after': _b, ...fastRest } = comparable(fast).headers;
        assert.deepEqual({ ...comparable(fast), headers: fastRest }, { ...comparable(plain), headers: plainRest });
      }
      const master = await send(p.fastBase, p.fastAgent, { method: 'GET', path: '/1.1/classes/Item?limit=1', headers: MASTER });
      assert.equal(master.status, 200, master.body);
    });
  });
}
