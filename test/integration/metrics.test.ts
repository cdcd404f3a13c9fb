// /metrics: who may read it, what it counts (requests by family and status, latency, 429s,
// WebSockets, pool, statement timeouts), and the optional request log with secrets kept out.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/log.ts';
import { translateDriverError } from '../../src/storage/driver-errors.ts';
import { forEachEngine, TEST_KEYS } from './harness/engines.ts';
import { configurePresence, enableFriends, eventually, openSocket } from './harness/presence-helpers.ts';
import { seedUser } from './harness/seed-users.ts';

/** The value of one sample line of a Prometheus text page (0 when absent). */
function sample(page: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^([^{ ]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

forEachEngine('metrics', (h) => {
  const scrape = async () => {
    const res = await h().server.inject({ method: 'GET', url: '/metrics', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master` } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  test('only the master key reads /metrics; others get the API error', async () => {
    const none = await h().server.inject({ method: 'GET', url: '/metrics' });
    assert.equal(none.statusCode, 401, none.body);
    const app = await h().server.inject({ method: 'GET', url: '/metrics', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey } });
    assert.equal(app.statusCode, 403);
    assert.deepEqual(JSON.parse(app.body), { code: 1, error: 'Reading /metrics needs the master key or the metrics token.' });
    const bearer = await h().server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything' } });
    assert.equal(bearer.statusCode, 401, 'no token configured: a bearer token is no key');
    assert.match(await scrape(), /^# HELP larder_http_requests_total /m);
  });

  test('requests are counted by family, method and status, with latency; classes and ids never become labels', async () => {
    const before = await scrape();
    const c = h().client;
    assert.equal((await c.post('/1.1/classes/MetricThing', { n: 1 })).status, 201);
    assert.equal((await c.post('/1.1/classes/MetricThing', { n: 2 })).status, 201);
    assert.equal((await c.request({ method: 'GET', url: '/1.1/classes/MetricThing/000000000000000000000000?where=%7Bnot-json' })).status, 200);
    assert.equal((await c.request({ method: 'GET', url: '/1.1/classes/MetricThing?where=%7Bnot-json' })).status, 400);
    assert.equal((await c.get('/1.1/nosuchfamily/x')).status, 404);
    const after = await scrape();
    const delta = (labels: Record<string, string>) => sample(after, 'larder_http_requests_total', labels) - sample(before, 'larder_http_requests_total', labels);
    assert.equal(delta({ family: 'classes', method: 'POST', status: '201' }), 2);
    assert.equal(delta({ family: 'classes', method: 'GET', status: '200' }), 1);
    assert.equal(delta({ family: 'classes', method: 'GET', status: '400' }), 1);
    assert.equal(delta({ family: 'other', method: 'GET', status: '404' }), 1);
    assert.ok(sample(after, 'larder_http_request_duration_seconds_count', { family: 'classes', method: 'POST' }) >= 2);
    assert.ok(sample(after, 'larder_http_request_duration_seconds_bucket', { family: 'classes', method: 'POST', le: '+Inf' }) >= 2);
    assert.doesNotMatch(after, /MetricThing|nosuchfamily|000000000000000000000000/);
    assert.match(after, /^larder_process_resident_memory_bytes \d+/m, 'process metrics too');
  });

  test('429 refusals, open WebSockets, pool use and statement timeouts', async () => {
    await enableFriends(h());
    await configurePresence(h(), { enableRichMsg: true, richPresenceFields: [{ key: 'lvl', type: 'variable' }] });
    const u = await seedUser(h());
    const before = await scrape();
    const me = (v: string) => h().client.post('/friend/v1/rich-presence/users/me', { config: [{ key: 'lvl', value: v }] }, { session: u.sessionToken });
    assert.equal((await me('1')).status, 200);
    assert.equal((await me('2')).status, 429);
    let page = await scrape();
    assert.equal(sample(page, 'larder_rate_limit_refusals_total', { family: 'friend' }) - sample(before, 'larder_rate_limit_refusals_total', { family: 'friend' }), 1);

    const base = await h().listen();
    const socket = await openSocket(base, u.sessionToken);
    page = await scrape();
    assert.equal(sample(page, 'larder_websocket_connections', { service: 'friends' }) - sample(before, 'larder_websocket_connections', { service: 'friends' }), 1);
    await socket.close();
    await eventually(async () => sample(await scrape(), 'larder_websocket_connections', { service: 'friends' }) === sample(before, 'larder_websocket_connections', { service: 'friends' }), 5000, 'the gauge goes back down');

    // The driver's "statement timeout" error (SQLSTATE 57014) as PostgreSQL raises it.
    translateDriverError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    page = await scrape();
    assert.equal(sample(page, 'larder_db_statement_timeouts_total') - sample(before, 'larder_db_statement_timeouts_total'), 1);
    // PostgreSQL has a pool (its size is the harness's); the embedded engine has none.
    const size = sample(page, 'larder_db_pool_connections', { state: 'size' });
    if (h().engine === 'postgres') assert.ok(size >= 1 && sample(page, 'larder_db_pool_connections', { state: 'total' }) >= 1, page);
    else assert.equal(size, sample(before, 'larder_db_pool_connections', { state: 'size' }));
  });

  test('a metrics token reads /metrics; the request log has ids and no secrets', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
    const server = await createApp(h().app, { logger: createLogger('info', sink), metricsToken: 'scrape-token-123', requestLog: true });
    try {
      const ok = await server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-token-123' } });
      assert.equal(ok.statusCode, 200);
      const wrong = await server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-token-12' } });
      assert.equal(wrong.statusCode, 403);
      const res = await server.inject({
        method: 'GET',
        url: '/1.1/classes/MetricThing?where=%7B%22secret%22%3A1%7D',
        headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master`, 'x-lc-session': 'sessiontokenvalue' },
      });
      assert.equal(res.statusCode, 200);
      const reqId = String(res.headers['x-request-id']);
      assert.match(reqId, /^[0-9a-f-]{36}$/);
      const record = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.msg === 'request' && r.reqId === reqId);
      assert.ok(record, lines.join('\n'));
      assert.deepEqual([record.method, record.path, record.family, record.status], ['GET', '/1.1/classes/MetricThing', 'classes', 200]);
      assert.equal(typeof record.ms, 'number');
      const all = lines.join('\n');
      for (const secret of [TEST_KEYS.masterKey, 'sessiontokenvalue', 'scrape-token-123', 'secret']) assert.equal(all.includes(secret), false, secret);
    } finally {
      await server.close();
    }
  });
});
