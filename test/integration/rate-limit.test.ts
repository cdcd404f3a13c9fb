import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { THUMBNAIL_RENDER_COST } from '../../src/modules/files/thumbnail.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';

// Per-client request limits (issue 12 item 4, src/http/rate-limit.ts) over HTTP on both engines.
// Each test speaks from its own client address (inject's remoteAddress) so that the counts of
// one test do not leak into the next.

interface Sent {
  status: number;
  body: { code?: number; error?: string; sessionToken?: string; objectId?: string } & Record<string, unknown>;
  headers: Record<string, unknown>;
}

for (const engine of engines()) {
  describe(`rate limits per client address and per session [${engine}]`, () => {
    let h: (Harness & { stop(): Promise<void> }) | undefined;
    const PER_IP = 5;
    const PER_SESSION = 3;
    before(async () => {
      h = await startHarness(engine, { policy: { corsOrigins: '*', trustProxy: false, rateLimits: { perIp: PER_IP, perSession: PER_SESSION, windowMs: 60_000 } } });
    });
    after(async () => {
      await h?.stop();
    });

    async function send(ip: string, opts: { method?: 'GET' | 'POST'; url: string; body?: unknown; session?: string; master?: boolean; text?: boolean }): Promise<Sent> {
      const headers: Record<string, string> = { 'content-type': opts.text ? 'text/plain' : 'application/json' };
      if (!opts.text) {
        headers['x-lc-id'] = TEST_KEYS.appId;
        headers['x-lc-key'] = opts.master ? `${TEST_KEYS.masterKey},master` : TEST_KEYS.appKey;
      }
      if (opts.session) headers['x-lc-session'] = opts.session;
      const res = await h!.server.inject({ method: opts.method ?? 'GET', url: opts.url, headers, payload: opts.body === undefined ? undefined : JSON.stringify(opts.body), remoteAddress: ip });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : {}, headers: res.headers };
    }

    function assertLimited(res: Sent, what: string): void {
      assert.equal(res.status, 429, `${what}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, { code: 429, error: 'Too many requests.' }, what);
      assert.ok(Number(res.headers['retry-after']) >= 1, `${what}: Retry-After ${String(res.headers['retry-after'])}`);
    }

    async function count(className: string): Promise<number> {
      const res = await send('10.9.9.9', { url: `/1.1/classes/${className}?count=1&limit=0`, master: true });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.count as number;
    }

    test('one address gets its limit, then 429 code 429 with Retry-After; other addresses and the master key go on', async () => {
      const ip = '10.0.0.1';
      for (let i = 0; i < PER_IP; i++) assert.equal((await send(ip, { url: '/1.1/classes/RateA' })).status, 200, `request ${i}`);
      assertLimited(await send(ip, { url: '/1.1/classes/RateA' }), 'past the limit');
      assertLimited(await send(ip, { method: 'POST', url: '/1.1/classes/RateA', body: { n: 1 } }), 'a write past the limit');
      assert.equal(await count('RateA'), 0, 'the refused write was not made');
      assert.equal((await send('10.0.0.2', { url: '/1.1/classes/RateA' })).status, 200, 'another address');
      assert.equal((await send(ip, { url: '/1.1/classes/RateA', master: true })).status, 200, 'the master key is not limited');
    });

    test('a batch counts each item: it cannot carry more requests than the limit', async () => {
      const ip = '10.0.1.1';
      const items = (n: number) => ({ requests: Array.from({ length: n }, (_, i) => ({ method: 'POST', path: '/1.1/classes/RateBatch', body: { i } })) });
      const first = await send(ip, { method: 'POST', url: '/1.1/batch', body: items(PER_IP - 1) });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(await count('RateBatch'), PER_IP - 1);
      // One request is left in the window; a batch of two does not fit and writes nothing.
      assertLimited(await send(ip, { method: 'POST', url: '/1.1/batch', body: items(2) }), 'second batch');
      assert.equal(await count('RateBatch'), PER_IP - 1, 'nothing of the refused batch was written');
      const big = await send('10.0.1.2', { method: 'POST', url: '/1.1/batch/save', body: items(PER_IP + 1) });
      assertLimited(big, 'one batch larger than the limit');
      assert.equal(await count('RateBatch'), PER_IP - 1);
    });

    test('the text/plain fallback counts like any request, whatever _method it names', async () => {
      const ip = '10.0.2.1';
      const creds = { _ApplicationId: TEST_KEYS.appId, _ApplicationKey: TEST_KEYS.appKey };
      for (let i = 0; i < PER_IP; i++) {
        const res = await send(ip, { method: 'POST', url: '/1.1/classes/RateFallback', text: true, body: { ...creds, _method: i % 2 ? 'GET' : 'DELETE' } });
        assert.ok(res.status < 429, `fallback ${i}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      assertLimited(await send(ip, { method: 'POST', url: '/1.1/classes/RateFallback', text: true, body: { ...creds, _method: 'GET' } }), 'fallback GET');
      assertLimited(await send(ip, { method: 'POST', url: '/1.1/batch', text: true, body: { ...creds, requests: [] } }), 'fallback batch');
    });

    test('a session has its own limit across addresses; calls without it are counted by address only', async () => {
      const signup = await send('10.0.3.9', { method: 'POST', url: '/1.1/users', body: { username: 'rate-user', password: 'pw-1234567' }, master: true });
      assert.equal(signup.status, 201, JSON.stringify(signup.body));
      const session = signup.body.sessionToken as string;
      for (let i = 0; i < PER_SESSION; i++) {
        assert.equal((await send(`10.0.3.${i + 1}`, { url: '/1.1/users/me', session })).status, 200, `session request ${i}`);
      }
      assertLimited(await send('10.0.3.5', { url: '/1.1/users/me', session }), 'the session past its limit from a fresh address');
      assert.equal((await send('10.0.3.5', { url: '/1.1/classes/RateA' })).status, 200, 'the same address without the session');
    });

    test('the newer paths count too: CQL, leaderboards, statuses, LiveQuery subscribe, fileTokens and the direct upload POST /1.1/files/<name>', async () => {
      const paths: { method?: 'GET' | 'POST'; url: string; body?: unknown }[] = [
        { url: '/1.1/cloudQuery?cql=select%20*%20from%20RateCql' },
        { url: '/1.1/leaderboard/leaderboards/nosuch/ranks' },
        { url: '/1.1/statuses' },
        { method: 'POST', url: '/1.1/LiveQuery/subscribe', body: { query: { className: 'RateLq', where: {} }, id: 'rate-lq' } },
        { method: 'POST', url: '/1.1/fileTokens', body: { name: 'a.txt' } },
      ];
      for (const [i, p] of paths.entries()) {
        const ip = `10.0.4.${i + 1}`;
        for (let k = 0; k < PER_IP; k++) assert.ok((await send(ip, p)).status < 429, `${p.url} ${k}`);
        assertLimited(await send(ip, p), p.url);
      }
      const upload = async (ip: string) => {
        const res = await h!.server.inject({ method: 'POST', url: '/1.1/files/rate.txt', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'text/plain' }, payload: 'bytes', remoteAddress: ip });
        return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : {}, headers: res.headers };
      };
      for (let k = 0; k < PER_IP; k++) assert.equal((await upload('10.0.4.9')).status, 201, `upload ${k}`);
      assertLimited(await upload('10.0.4.9'), 'a direct upload past the limit');
      assert.equal((await send('10.9.9.8', { url: '/1.1/classes/files?count=1&limit=0&where=%7B%22name%22%3A%22rate.txt%22%7D', master: true })).body.count, PER_IP, 'the refused upload stored nothing');
    });
  });

  describe(`rate limits: file downloads and thumbnails [${engine}]`, () => {
    let h: (Harness & { stop(): Promise<void> }) | undefined;
    const PER_IP = 30;
    let file: { objectId: string; url: string };
    before(async () => {
      h = await startHarness(engine, { policy: { corsOrigins: '*', trustProxy: false, rateLimits: { perIp: PER_IP, perSession: 0, windowMs: 60_000 } } });
      const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#884422' } }).png().toBuffer();
      // The master key's upload is not counted (its address is no client's below).
      const res = await h.server.inject({ method: 'POST', url: '/1.1/files/rate.png', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master`, 'content-type': 'image/png' }, payload: png, remoteAddress: '10.2.9.9' });
      assert.equal(res.statusCode, 201, res.body);
      file = JSON.parse(res.body) as { objectId: string; url: string };
    });
    after(async () => {
      await h?.stop();
    });

    /** GET of the file (path and query after /files/), from `ip`. */
    const get = async (ip: string, query = '') => {
      const res = await h!.server.inject({ url: `${new URL(file.url).pathname}${query}`, remoteAddress: ip });
      return { status: res.statusCode, body: res.headers['content-type']?.toString().startsWith('application/json') ? JSON.parse(res.body) : {}, headers: res.headers };
    };
    const made = async () => (await readdir(join(filesServiceOf(h!.app)!.opts.dir, 'thumbnails', file.objectId)).catch(() => [] as string[])).filter((n) => !n.endsWith('.part')).length;

    function assertLimited(res: { status: number; body: unknown; headers: Record<string, unknown> }, what: string): void {
      assert.equal(res.status, 429, what);
      assert.deepEqual(res.body, { code: 429, error: 'Too many requests.' }, what);
      assert.ok(Number(res.headers['retry-after']) >= 1, `${what}: Retry-After`);
      assert.equal(res.headers['cache-control'], 'no-store', `${what}: not cached`);
    }

    test('every download counts one request: past the limit 429, other addresses go on', async () => {
      for (let k = 0; k < PER_IP; k++) assert.equal((await get('10.2.0.1')).status, 200, `download ${k}`);
      assertLimited(await get('10.2.0.1'), 'a download past the limit');
      assertLimited(await get('10.2.0.1', '?imageView/2/w/10/h/10'), 'a thumbnail past the limit');
      assert.equal((await get('10.2.0.2')).status, 200, 'another address');
    });

    test(`a thumbnail not yet made counts ${THUMBNAIL_RENDER_COST} more, a cached one only its GET; a refused render makes nothing`, async () => {
      const ip = '10.2.1.1';
      const miss = 1 + THUMBNAIL_RENDER_COST;
      assert.equal((await get(ip, '?imageView/2/w/50/h/50')).status, 200, 'a first render');
      for (let k = 0; k < 5; k++) assert.equal((await get(ip, '?imageView/2/w/50/h/50')).status, 200, `cached ${k}`);
      assert.equal(await made(), 1);
      // Spent: miss + 5. A second new size fits (2 * miss + 5 <= 30), a third does not.
      assert.ok(2 * miss + 5 <= PER_IP && 3 * miss + 5 > PER_IP, 'the arithmetic of this test');
      assert.equal((await get(ip, '?imageView/2/w/40/h/40')).status, 200, 'a second render');
      assertLimited(await get(ip, '?imageView/2/w/30/h/30'), 'a render past the limit');
      assert.equal(await made(), 2, 'the refused render made nothing');
      assert.equal((await get('10.2.1.2', '?imageView/2/w/30/h/30')).status, 200, 'another address gets it made');
    });
  });

  describe(`rate limits: the window ends [${engine}]`, () => {
    let h: (Harness & { stop(): Promise<void> }) | undefined;
    before(async () => {
      h = await startHarness(engine, { policy: { corsOrigins: '*', trustProxy: false, rateLimits: { perIp: 1, perSession: 0, windowMs: 1000 } } });
    });
    after(async () => {
      await h?.stop();
    });

    test('after the window a limited client is served again', async () => {
      const get = async () => (await h!.server.inject({ url: '/1.1/classes/RateW', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey }, remoteAddress: '10.1.0.1' })).statusCode;
      let limited = false;
      // On a slow machine the first window may end between two calls: try a few times.
      for (let i = 0; i < 5 && !limited; i++) limited = (await get()) === 429;
      assert.ok(limited, 'a second call in the window is refused');
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(await get(), 200);
    });
  });
}
