// The fast path of cloud function calls (src/http/routes/function-fast-path.ts) answers the
// common call before Fastify routes it; it must be indistinguishable from the Fastify route.
// Each call here is made twice: over a real socket (the fast path takes it, or hands it to the
// route after the engine answered) and with server.inject (Fastify's route only, which never
// sees the fast path). Status, answer headers, body, and what the engine was sent must match.
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CloudCode } from '../../src/cloud/cloud-code.ts';
import { createLogger } from '../../src/log.ts';
import { testCloudOptions } from './harness/engine-app.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';

interface Asked {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A body of 1-, 2-, 3- and 4-byte UTF-8 characters, which a forwarder must pass on byte for byte. */
const ECHOED = JSON.stringify({ name: 'a é 日本語 😀' });

/** Two cookies, one with an Expires date (which holds a comma). */
const COOKIES = ['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/', 'b=2'];

/** Answers by function name, in the shapes an engine may give. */
function shapesEngine(asked: Asked[]): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (path.startsWith('/1.1/functions/_ops/metadatas')) return res.end(JSON.stringify({ result: [] }));
      asked.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const name = path.split('/').pop() ?? '';
      const small = JSON.stringify({ result: `hi ${name}` });
      if (name === 'refuse') return res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3001,"error":"nope"}');
      if (name === 'big') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: 'x'.repeat(5000) }));
      if (name === 'empty') return res.writeHead(204).end();
      if (name === 'echo') {
        // The request's JSON sent back inside the answer: multi-byte UTF-8 both ways.
        const text = `{"result":${Buffer.concat(chunks).toString('utf8')}}`;
        return res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
      }
      if (name === 'chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"result":');
        return res.end('"in pieces"}');
      }
      if (name === 'cookie') return res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'set-cookie': COOKIES, 'x-engine-only': '1' }).end(small);
      if (name === 'untyped') return res.writeHead(200, { 'content-length': Buffer.byteLength(small) }).end(small);
      if (name === 'cut') {
        // A declared length, part of the body, then the connection goes away.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"result":');
        return void setTimeout(() => res.socket?.destroy(), 50);
      }
      if (name === 'slow') return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(small), 3000);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(small) }).end(small);
    });
  });
}

/** One call over a real socket: status, headers and the body exactly as they came. */
function socketCall(base: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Headers that differ between a socket and inject for reasons of transport only. */
function comparable(h: http.IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // A socket client always gives set-cookie as a list; inject gives one value as a string.
  for (const [k, v] of Object.entries(h)) if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

for (const engine of engines()) {
  describe(`cloud function fast path matches the Fastify route [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let fake: http.Server;
    let base: string;
    const asked: Asked[] = [];
    before(async () => {
      fake = shapesEngine(asked);
      await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
      const engineUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      // The same engine for staging: the errors that name the engine's setting name the staging one.
      const cloud = new CloudCode(testCloudOptions(engineUrl, { functionTimeoutMs: 1000, stagingUrl: engineUrl }), createLogger('silent'));
      h = await startHarness(engine, { cloud });
      base = await h.listen();
    });
    after(async () => {
      await h?.stop();
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
    });

    const key = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json', 'user-agent': 'fast-path-test' };
    const cases: [string, string, Record<string, string>, string][] = [
      ['a small answer', '/1.1/functions/hello', key, '{"name":"a"}'],
      ['under /1/ and /call/', '/1/call/hello', key, '{"name":"b"}'],
      ['an empty body', '/1.1/functions/hello', key, ''],
      ['an error from the function', '/1.1/functions/refuse', key, '{}'],
      ['an answer above the compression threshold, gzip accepted', '/1.1/functions/big', { ...key, 'accept-encoding': 'gzip' }, '{}'],
      ['a chunked answer', '/1.1/functions/chunked', key, '{}'],
      ['204 without a body', '/1.1/functions/empty', key, '{}'],
      ['cache-control and cookies passed back, other headers not', '/1.1/functions/cookie', key, '{}'],
      ['no content type from the engine', '/1.1/functions/untyped', key, '{}'],
      ['a session and X-LC-Prod passed on', '/1.1/functions/hello', { ...key, 'x-lc-session': 'abc', 'x-lc-prod': '0', 'x-forwarded-for': '10.0.0.9' }, '{"p":1}'],
      ['a wrong key: 401, the engine not asked', '/1.1/functions/hello', { ...key, 'x-lc-key': 'wrong' }, '{}'],
      ['the engine slower than the deadline: 124', '/1.1/functions/slow', key, '{}'],
      ['the engine gone in the middle of a small answer', '/1.1/functions/cut', key, '{}'],
      ['the staging engine gone in the middle of a small answer', '/1.1/functions/cut', { ...key, 'x-lc-prod': '0' }, '{}'],
      ['an origin header', '/1.1/functions/hello', { ...key, origin: 'https://app.example.com' }, '{}'],
      ['multi-byte UTF-8 in the body and the answer', '/1.1/functions/echo', key, ECHOED],
    ];
    for (const [what, path, headers, body] of cases) {
      test(what, async () => {
        asked.length = 0;
        const viaSocket = await socketCall(base, path, headers, body);
        const socketAsked = asked.splice(0);
        const viaInject = await h.server.inject({ method: 'POST', url: path, headers, payload: body });
        const injectAsked = asked.splice(0);
        assert.equal(viaSocket.status, viaInject.statusCode, viaSocket.body);
        assert.deepEqual(comparable(viaSocket.headers), comparable(viaInject.headers as http.IncomingHttpHeaders));
        assert.equal(viaSocket.body, viaInject.rawPayload.toString('latin1'));
        assert.equal(socketAsked.length, injectAsked.length);
        for (let i = 0; i < socketAsked.length; i++) {
          assert.equal(socketAsked[i].path, injectAsked[i].path);
          assert.equal(socketAsked[i].body, injectAsked[i].body);
          const { host: _a, connection: _b, ...sent } = socketAsked[i].headers;
          const { host: _c, connection: _d, ...sentByRoute } = injectAsked[i].headers;
          assert.deepEqual(sent, sentByRoute);
        }
      });
    }

    test('each Set-Cookie of the engine reaches the client as a header of its own, an Expires date intact', async () => {
      const viaSocket = await socketCall(base, '/1.1/functions/cookie', key, '{}');
      assert.equal(viaSocket.status, 200, viaSocket.body);
      assert.deepEqual(viaSocket.headers['set-cookie'], COOKIES);
      const viaInject = await h.server.inject({ method: 'POST', url: '/1.1/functions/cookie', headers: key, payload: '{}' });
      assert.deepEqual(viaInject.headers['set-cookie'], COOKIES);
    });

    test('multi-byte UTF-8 reaches the engine and comes back byte for byte', async () => {
      asked.length = 0;
      const viaSocket = await socketCall(base, '/1.1/functions/echo', key, ECHOED);
      assert.equal(viaSocket.status, 200, viaSocket.body);
      assert.equal(asked[0]?.body, ECHOED);
      assert.equal(Buffer.from(viaSocket.body, 'latin1').toString('utf8'), `{"result":${ECHOED}}`);
      assert.equal(viaSocket.headers['content-length'], String(Buffer.byteLength(`{"result":${ECHOED}}`)));
    });
  });
}

/** A server with these per-client limits, calling a shapes engine that records what it was asked. */
async function limitedServer(engine: 'pglite' | 'postgres', asked: Asked[], rateLimits: { perIp: number; perSession: number }): Promise<{ h: Harness & { stop(): Promise<void> }; fake: http.Server; base: string }> {
  const fake = shapesEngine(asked);
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const engineUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const cloud = new CloudCode(testCloudOptions(engineUrl, { functionTimeoutMs: 5000 }), createLogger('silent'));
  const h = await startHarness(engine, { cloud, policy: { corsOrigins: '*', trustProxy: false, rateLimits: { ...rateLimits, windowMs: 60_000 } } });
  return { h, fake, base: await h.listen() };
}

for (const engine of engines()) {
  describe(`cloud function calls count against the per-client limits [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let fake: http.Server;
    let base: string;
    const asked: Asked[] = [];
    const PER_IP = 3;
    before(async () => {
      ({ h, fake, base } = await limitedServer(engine, asked, { perIp: PER_IP, perSession: 0 }));
    });
    after(async () => {
      await h?.stop();
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
    });

    test('over a real socket: the limit, then 429 with Retry-After and the engine not asked; the master key goes on', async () => {
      const key = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json' };
      asked.length = 0;
      for (let i = 0; i < PER_IP; i++) {
        const ok = await socketCall(base, '/1.1/functions/hello', key, '{}');
        assert.equal(ok.status, 200, ok.body);
      }
      assert.equal(asked.length, PER_IP);
      const refused = await socketCall(base, '/1.1/functions/hello', key, '{"n":1}');
      assert.equal(refused.status, 429, refused.body);
      assert.deepEqual(JSON.parse(refused.body), { code: 429, error: 'Too many requests.' });
      assert.ok(Number(refused.headers['retry-after']) >= 1, String(refused.headers['retry-after']));
      const viaCall = await socketCall(base, '/1.1/call/hello', key, '{}');
      assert.equal(viaCall.status, 429, 'the /call/ form counts too');
      assert.equal(asked.length, PER_IP, 'refused calls never reach the engine');
      const master = await socketCall(base, '/1.1/functions/hello', { ...key, 'x-lc-key': `${TEST_KEYS.masterKey},master` }, '{}');
      assert.equal(master.status, 200, master.body);
    });
  });
}

for (const engine of engines()) {
  describe(`with per-client limits on, the fast path counts calls in the route's limiter and leaves 429 to the route [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let fake: http.Server;
    let base: string;
    const asked: Asked[] = [];
    // Function calls a Fastify route handled (Fastify's diagnostics channel, published when a
    // route's handler starts): the fast path's own answers never get there.
    const routed: string[] = [];
    const onHandler = (message: unknown) => {
      const url = (message as { route?: { url?: unknown } }).route?.url;
      if (typeof url === 'string' && /\/(functions|call)\//.test(url)) routed.push(url);
    };
    const PER_IP = 5;
    const PER_SESSION = 3;
    before(async () => {
      ({ h, fake, base } = await limitedServer(engine, asked, { perIp: PER_IP, perSession: PER_SESSION }));
      diagnostics.subscribe('tracing:fastify.request.handler:start', onHandler);
    });
    after(async () => {
      diagnostics.unsubscribe('tracing:fastify.request.handler:start', onHandler);
      await h?.stop();
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
    });

    const key = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json' };
    const withSession = { ...key, 'x-lc-session': 'fast-path-session' };
    /** A call over the socket (127.0.0.1): its answer, and whether Fastify routed it. */
    async function viaSocket(headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; routed: boolean }> {
      routed.length = 0;
      const res = await socketCall(base, '/1.1/functions/hello', headers, '{}');
      return { ...res, routed: routed.length > 0 };
    }
    /** The same call through inject: the route only, from the given address. */
    async function viaRoute(headers: Record<string, string>, ip: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
      const res = await h.server.inject({ method: 'POST', url: '/1.1/functions/hello', headers, payload: '{}', remoteAddress: ip });
      return { status: res.statusCode, headers: res.headers as http.IncomingHttpHeaders, body: res.rawPayload.toString('latin1') };
    }
    /** The fast path's 429 is the route's: status, body, headers (Retry-After within the second it was taken). */
    function assertSame429(fast: { status: number; headers: http.IncomingHttpHeaders; body: string }, route: { status: number; headers: http.IncomingHttpHeaders; body: string }): void {
      assert.equal(fast.status, 429, fast.body);
      assert.equal(route.status, 429, route.body);
      assert.deepEqual(JSON.parse(fast.body), { code: 429, error: 'Too many requests.' });
      assert.equal(fast.body, route.body);
      const { 'retry-after': fastWait, ...fastRest } = comparable(fast.headers);
      const { 'retry-after': routeWait, ...routeRest } = comparable(route.headers);
      assert.deepEqual(fastRest, routeRest);
      assert.ok(Number(fastWait) >= 1 && Math.abs(Number(fastWait) - Number(routeWait)) <= 1, `Retry-After ${String(fastWait)} and ${String(routeWait)}`);
    }

    test('calls of the fast path and of the route add up, per address and per session, each counted once', async () => {
      asked.length = 0;
      // A wrong key is the route's 401 and counts against nothing.
      const wrong = await viaSocket({ ...key, 'x-lc-key': 'wrong' });
      assert.equal(wrong.status, 401, wrong.body);
      // Per session (3): fast path, route (from another address), fast path; then over.
      const first = await viaSocket(withSession);
      assert.equal(first.status, 200, first.body);
      assert.equal(first.routed, false, 'answered by the fast path, with limits on');
      assert.equal((await viaRoute(withSession, '10.7.0.1')).status, 200);
      const third = await viaSocket(withSession);
      assert.equal(third.status, 200, third.body);
      assert.equal(third.routed, false);
      const overSession = await viaSocket(withSession);
      assert.equal(overSession.routed, true, 'a call over a limit is answered by the route');
      assertSame429(overSession, await viaRoute(withSession, '10.7.0.2'));
      assert.equal(asked.length, 3, 'refused calls never reach the engine');
      // Per address (5): 127.0.0.1 has made 3 counted calls (the 401 did not count, the refused
      // one did, once). Two more by the route and the fast path fill the window.
      assert.equal((await viaRoute(key, '127.0.0.1')).status, 200);
      const fifth = await viaSocket(key);
      assert.equal(fifth.status, 200, fifth.body);
      assert.equal(fifth.routed, false);
      const overIp = await viaSocket(key);
      assert.equal(overIp.routed, true);
      assertSame429(overIp, await viaRoute(key, '127.0.0.1'));
      assert.equal(asked.length, 5);
      // The master key is not limited, and its calls stay on the fast path.
      const master = await viaSocket({ ...key, 'x-lc-key': `${TEST_KEYS.masterKey},master` });
      assert.equal(master.status, 200, master.body);
      assert.equal(master.routed, false);
    });
  });
}
