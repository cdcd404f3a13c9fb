/**
 * The LiveQuery wire protocol with a bare WebSocket client whose frames the official SDK's own
 * protobufjs types build and read: route discovery, the three subprotocols, login, echo, ack,
 * errors, hostile frames, and the subscribe/unsubscribe checks. Events themselves are tested
 * end to end with the SDK in livequery-sdk.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { forEachEngine, startHarness, TEST_KEYS } from './harness/engines.ts';
import { CommandType, openRawClient } from './harness/livequery-client.ts';
import { signUp } from './harness/user-helpers.ts';
import { liveQueryOf } from '../../src/modules/livequery/service/service-registry.ts';
import { sql } from '../../src/sql/fragment.ts';

const PROTOCOLS = ['lc.protobuf2.3', 'lc.proto2base64.3', 'lc.json.3'];
const cmdName = (m: Record<string, any>) => (typeof m.cmd === 'string' ? m.cmd : Object.keys(CommandType).find((k) => CommandType[k] === m.cmd));
const sid = () => `sub-${randomBytes(6).toString('hex')}`;

forEachEngine('livequery: protocol', (h) => {
  test('GET /v1/route answers this server, honouring a trusted proxy; a foreign appId is refused', async () => {
    const direct = await h().client.get('/v1/route', { appId: TEST_KEYS.appId, secure: 1 }, { auth: false, headers: { host: 'api.example.test:8080' } });
    assert.equal(direct.status, 200);
    assert.deepEqual(direct.body, { server: 'ws://api.example.test:8080/livequery', secondary: 'ws://api.example.test:8080/livequery', ttl: 3600 });
    const forwarded = { host: 'api.example.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'live.example.test' };
    const untrusted = await h().client.get('/v1/route', { appId: TEST_KEYS.appId }, { auth: false, headers: forwarded });
    assert.equal(untrusted.body.server, 'ws://api.example.test/livequery', 'no proxy is trusted by default');
    const behindProxy = await startHarness(h().engine, { policy: { corsOrigins: '*', trustProxy: ['127.0.0.1'] } });
    try {
      const proxied = await behindProxy.client.get('/v1/route', { appId: TEST_KEYS.appId }, { auth: false, headers: forwarded });
      assert.equal(proxied.body.server, 'wss://live.example.test/livequery');
    } finally {
      await behindProxy.stop();
    }
    const foreign = await h().client.get('/v1/route', { appId: 'someone-else' }, { auth: false });
    assert.equal(foreign.status, 404);
    assert.equal(typeof foreign.body.error, 'string');
  });

  test('an unknown subprotocol is refused at the upgrade', async () => {
    const base = (await h().listen()).replace(/^http/, 'ws');
    await assert.rejects(openRawClient(`${base}/livequery`, 'lc.msgpack.3'), /400/);
  });

  for (const protocol of PROTOCOLS) {
    test(`${protocol}: login, echo, logout, errors and hostile frames`, async () => {
      const base = (await h().listen()).replace(/^http/, 'ws');
      const c = await openRawClient(`${base}/livequery`, protocol);
      assert.equal(c.ws.protocol, protocol);
      const id = sid();
      const cmd = (name: string) => (protocol === 'lc.json.3' ? name : CommandType[name]);
      c.send({ cmd: cmd('login'), i: 1, appId: TEST_KEYS.appId, installationId: id, service: 1 });
      const loggedIn = await c.next((m) => m.i === 1);
      assert.equal(cmdName(loggedIn), 'loggedin');
      c.send({ cmd: cmd('echo'), i: 2 });
      assert.equal(cmdName(await c.next((m) => m.i === 2)), 'echo');
      c.send({ cmd: cmd('login'), i: 3, appId: 'wrong-app', installationId: id, service: 1 });
      const wrongApp = await c.next((m) => m.i === 3);
      assert.equal(cmdName(wrongApp), 'error');
      assert.equal(wrongApp.errorMessage.code, 4100);
      c.send({ cmd: cmd('login'), i: 4, appId: TEST_KEYS.appId, service: 1 });
      assert.equal((await c.next((m) => m.i === 4)).errorMessage.code, 4103);
      c.send({ cmd: cmd('session'), op: protocol === 'lc.json.3' ? 'open' : 1, i: 5, peerId: 'im-user' });
      const im = await c.next((m) => m.i === 5);
      assert.equal(cmdName(im), 'error');
      assert.match(im.errorMessage.reason, /LiveQuery only/);
      // Garbage of every kind gets an error command; the connection stays usable.
      c.sendRaw(protocol === 'lc.protobuf2.3' ? Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]) : 'not a command ~~~');
      const bad = await c.next((m) => cmdName(m) === 'error' && m.i == null);
      assert.match(bad.errorMessage.reason, /Malformed command/);
      c.send({ cmd: cmd('echo'), i: 6 });
      assert.equal(cmdName(await c.next((m) => m.i === 6)), 'echo');
      c.send({ cmd: cmd('logout'), i: 7, installationId: id, service: 1 });
      assert.equal(cmdName(await c.next((m) => m.i === 7)), 'loggedout');
      await c.close();
    });
  }

  test('lc.json.3: the C# heartbeat {} is answered with {}', async () => {
    const base = (await h().listen()).replace(/^http/, 'ws');
    const c = await openRawClient(`${base}/livequery`, 'lc.json.3');
    c.sendRaw('{}');
    await c.next((m) => Object.keys(m).length === 0);
    await c.close();
  });

  for (const protocol of PROTOCOLS) {
    test(`${protocol}: a push is a data command; its ack removes it from the outbox`, async () => {
      const base = (await h().listen()).replace(/^http/, 'ws');
      const c = await openRawClient(`${base}/livequery`, protocol);
      const id = sid();
      const cmd = (name: string) => (protocol === 'lc.json.3' ? name : CommandType[name]);
      c.send({ cmd: cmd('login'), i: 1, appId: TEST_KEYS.appId, installationId: id, service: 1 });
      await c.next((m) => m.i === 1);
      const sub = await h().client.post('/1.1/LiveQuery/subscribe', { query: { className: 'LqProto', where: { room: 'x' } }, id });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      await liveQueryOf(h().app)!.publish({ className: 'LqProto', kind: 'create', object: { objectId: 'o1', room: 'x', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', ACL: { '*': { read: true } } } });
      const data = await c.next((m) => cmdName(m) === 'data');
      assert.equal(data.installationId, id);
      assert.equal(data.service, 1);
      const [seq] = data.dataMessage.ids;
      assert.deepEqual(JSON.parse(data.dataMessage.msg[0].data), { op: 'create', object: { className: 'LqProto', objectId: 'o1', room: 'x', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }, query_id: sub.body.query_id });
      const pending = async () => (await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_lq_events WHERE installation_id = ${id}`))[0].n;
      assert.equal(await pending(), 1);
      c.ack(id, [seq]);
      for (let i = 0; i < 100 && (await pending()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await pending(), 0, 'acknowledged push deleted');
      await c.close();
    });
  }

  test('subscribe: inner queries, hidden fields, class permissions (the master key gets no bypass), bad bodies', async () => {
    const c = h().client;
    const inner = await c.post('/1.1/LiveQuery/subscribe', { query: { className: 'LqA', where: { owner: { $inQuery: { className: 'LqB', where: {} } } } }, id: sid() });
    assert.equal(inner.status, 400);
    assert.equal(inner.body.code, 102);
    assert.match(inner.body.error, /inner queries/);
    const hidden = await c.post('/1.1/LiveQuery/subscribe', { query: { className: '_User', where: { sessionToken: 'x' } }, id: sid() });
    assert.equal(hidden.status, 400, JSON.stringify(hidden.body));
    await c.post('/1.1/classes/LqClosed', { v: 1 }, { master: true });
    const perm = await c.put('/1.1/larder/classes/LqClosed/permissions', { find: { users: [], roles: [] } }, { master: true });
    assert.equal(perm.status, 200, JSON.stringify(perm.body));
    for (const master of [false, true]) {
      const closed = await c.post('/1.1/LiveQuery/subscribe', { query: { className: 'LqClosed', where: {} }, id: sid() }, { master });
      assert.deepEqual({ status: closed.status, body: closed.body }, { status: 403, body: { code: 1, error: 'Forbidden to find by class permissions.' } });
    }
    for (const body of [{}, { id: sid() }, { query: { className: 'Item' } }, { query: { className: 'Item' }, id: 5 }, 'text']) {
      const res = await c.post('/1.1/LiveQuery/subscribe', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof res.body.code, 'number');
    }
    const noQueryId = await c.post('/1.1/LiveQuery/unsubscribe', { id: sid() });
    assert.equal(noQueryId.status, 400);
  });

  test('subscribe: the same subscription id and query keep their query_id; a session is taken from the header or the body', async () => {
    const u = await signUp(h());
    const id = sid();
    const query = { className: 'LqSame', where: { n: { $gt: 1 } } };
    const a = await h().client.post('/1.1/LiveQuery/subscribe', { query, id }, { session: u.sessionToken });
    const b = await h().client.post('/1.1/LiveQuery/subscribe', { query: { ...query, where: JSON.stringify(query.where) }, id, sessionToken: u.sessionToken });
    assert.equal(a.status, 200);
    assert.equal(a.body.query_id, b.body.query_id);
    const [row] = await h().db.query<{ session_token: string }>(sql`SELECT session_token FROM _larder_lq_subscriptions WHERE query_id = ${a.body.query_id}`);
    assert.equal(row.session_token, u.sessionToken);
    const un = await h().client.post('/1.1/LiveQuery/unsubscribe', { id, query_id: a.body.query_id });
    assert.deepEqual({ status: un.status, body: un.body }, { status: 200, body: {} });
    assert.equal(liveQueryOf(h().app)!.registry.size >= 0, true);
    const again = await h().client.post('/1.1/LiveQuery/unsubscribe', { id, query_id: a.body.query_id });
    assert.equal(again.status, 200, 'unsubscribing twice is not an error');
  });

  test('subscribe: a subscription id holds at most 200 subscriptions; refreshing one at the limit is allowed', async () => {
    const id = sid();
    const subscribe = (n: number) => h().client.post('/1.1/LiveQuery/subscribe', { query: { className: 'LqLimit', where: { n } }, id });
    for (let start = 0; start < 200; start += 25) {
      const answers = await Promise.all(Array.from({ length: 25 }, (_, k) => subscribe(start + k)));
      for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
    }
    const over = await subscribe(200);
    assert.deepEqual({ status: over.status, code: over.body.code }, { status: 400, code: 154 });
    const refreshed = await subscribe(7);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const [{ n }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_lq_subscriptions WHERE installation_id = ${id}`);
    assert.equal(n, 200);
    const registry = liveQueryOf(h().app)!.registry;
    const overId = (await h().db.query(sql`SELECT 1 FROM _larder_lq_subscriptions WHERE installation_id = ${id} AND query->'where' = '{"n":200}'::jsonb`)).length;
    assert.equal(overId, 0, 'the refused subscription is not stored');
    assert.equal([...registry.ofClass('LqLimit')].filter((s) => s.subscriptionId === id).length, 200, 'nor kept in memory');
  });
});
