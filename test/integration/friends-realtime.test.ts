import { sql } from '../../src/sql/fragment.ts';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { notifyUsers } from '../../src/modules/friends/realtime/notify.ts';
import { engines, forEachEngine, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';
import { befriend, configurePresence, enableFriends, eventually, openSocket, wrap, type TestSocket } from './harness/presence-helpers.ts';
import { seedUser, seedUsers, type SeededUser } from './harness/seed-users.ts';

const ME = '/friend/v1/rich-presence/users/me';
const USERS = '/friend/v1/rich-presence/users';
const ONLINE = 'friendship/friend/online';
const UPDATE = 'friendship/rich_presence/update';

async function refused(p: Promise<TestSocket>): Promise<{ status: number; body: any }> {
  try {
    const s = await p;
    await s.close();
  } catch (err) {
    return err as { status: number; body: any };
  }
  throw new Error('the upgrade was accepted');
}

async function onlineOf(h: Harness, viewer: SeededUser, id: string): Promise<boolean> {
  const res = await h.client.get(USERS, { ids: id }, { session: viewer.sessionToken });
  return res.body.results[0].online;
}

const isPath = (path: string, userId?: string) => (m: any) => m?.header?.path === path && (userId === undefined || m.body?.userId === userId);

forEachEngine('friends realtime', (h) => {
  let base = '';
  let a: SeededUser;
  let b: SeededUser;
  let stranger: SeededUser;
  const open: TestSocket[] = [];
  const connect = async (u: SeededUser, opts?: { viaQuery?: boolean; path?: string }) => {
    const s = await openSocket(base, u.sessionToken, opts);
    open.push(s);
    return s;
  };

  before(async () => {
    base = await h().listen();
    [a, b, stranger] = await seedUsers(h(), 3);
  });
  after(async () => {
    for (const s of open) await s.close();
  });

  test('the upgrade is refused before the WebSocket exists: off, missing or bad credentials, wrong path', async () => {
    const off = await refused(openSocket(base, a.sessionToken));
    assert.equal(off.status, 403);
    assert.match(off.body.error, /richPresenceSync/);
    await enableFriends(h());
    await configurePresence(h(), { enableRichMsg: true, enableOnlineMsg: true, richPresenceFields: [{ key: 'score', type: 'variable' }] });
    const ws = base.replace(/^http/, 'ws') + '/ws/leancloud/v1';
    const noSession = await refused(wrap(new WebSocket(ws, { headers: { 'X-LC-Id': TEST_KEYS.appId, 'X-LC-Key': TEST_KEYS.appKey } })));
    assert.deepEqual([noSession.status, noSession.body.code], [400, 400]);
    const noKey = await refused(wrap(new WebSocket(ws, { headers: { 'X-LC-Id': TEST_KEYS.appId, 'X-LC-Session': a.sessionToken } })));
    assert.deepEqual([noKey.status, noKey.body.code], [400, 400]);
    const badKey = await refused(wrap(new WebSocket(ws, { headers: { 'X-LC-Id': TEST_KEYS.appId, 'X-LC-Key': 'wrong', 'X-LC-Session': a.sessionToken } })));
    assert.deepEqual([badKey.status, badKey.body.code], [401, 401]);
    const badSession = await refused(openSocket(base, 'nosuchsession'));
    assert.deepEqual([badSession.status, badSession.body.code], [401, 401]);
    const wrongPath = await refused(openSocket(base, a.sessionToken, { path: '/ws/other' }));
    assert.equal(wrongPath.status, 404);
    // Never the master key in a URL.
    const masterInQuery = await refused(wrap(new WebSocket(`${ws}?X-LC-Id=${TEST_KEYS.appId}&X-LC-Key=${TEST_KEYS.masterKey},master&X-LC-Session=${a.sessionToken}`)));
    assert.deepEqual([masterInQuery.status, masterInQuery.body.code], [401, 401]);
    // Browsers: the same credentials as query parameters.
    const s = await connect(a, { viaQuery: true });
    assert.equal(s.ws.readyState, WebSocket.OPEN);
    await s.close();
  });

  test('the path of a configured friendsWebSocketUrl is served too', async () => {
    await h().client.put('/1.1/larder/settings', { friendsWebSocketUrl: 'wss://rt.example.com/game/friends' }, { master: true });
    try {
      const s = await connect(a, { path: '/game/friends' });
      s.ws.send('{}');
      await s.next((m) => typeof m === 'object' && m !== null && Object.keys(m).length === 0);
      await s.close();
    } finally {
      await h().client.put('/1.1/larder/settings', { friendsWebSocketUrl: null }, { master: true });
    }
    assert.equal((await refused(openSocket(base, a.sessionToken, { path: '/game/friends' }))).status, 404);
  });

  test('one user holds at most 20 connections on a process', async () => {
    const u = await seedUser(h());
    const held: TestSocket[] = [];
    for (let i = 0; i < 20; i++) held.push(await openSocket(base, u.sessionToken));
    const extra = await refused(openSocket(base, u.sessionToken));
    assert.deepEqual([extra.status, extra.body.code], [429, 429]);
    await held[0].close();
    held[0] = await openSocket(base, u.sessionToken);
    for (const s of held) await s.close();
  });

  test('heartbeat: {} is answered with {}', async () => {
    const s = await connect(a);
    s.ws.send('{}');
    assert.deepEqual(await s.next((m) => typeof m === 'object' && m !== null && Object.keys(m).length === 0), {});
    await s.close();
  });

  test('friends are told when a user comes online and goes offline; others are not', async () => {
    await befriend(h(), a.objectId, b.objectId);
    const sa = await connect(a);
    const sx = await connect(stranger);
    await eventually(() => onlineOf(h(), a, a.objectId), 5000, 'a online');
    const sb1 = await connect(b);
    assert.deepEqual(await sa.next(isPath(ONLINE, b.objectId)), { header: { path: ONLINE }, body: { userId: b.objectId, online: true } });
    assert.equal(await onlineOf(h(), a, b.objectId), true);
    // A second connection of an online user changes nothing; the user stays online until the last goes.
    const sb2 = await connect(b);
    await sb1.close();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await onlineOf(h(), a, b.objectId), true);
    assert.equal(sa.messages.filter(isPath(ONLINE, b.objectId)).length, 0);
    await sb2.close();
    assert.deepEqual((await sa.next(isPath(ONLINE, b.objectId))).body, { userId: b.objectId, online: false });
    assert.equal(await onlineOf(h(), a, b.objectId), false);
    // b's friend a, seen from b's side, is online. The stranger gets no notification; it may
    // read a's online flag under the default richPresenceAudience "users", not under "friends".
    assert.equal(await onlineOf(h(), b, a.objectId), true);
    assert.equal(await onlineOf(h(), stranger, a.objectId), true);
    assert.equal((await h().client.put('/1.1/larder/settings', { richPresenceAudience: 'friends' }, { master: true })).status, 200);
    assert.equal(await onlineOf(h(), stranger, a.objectId), false);
    assert.equal(await onlineOf(h(), b, a.objectId), true);
    assert.equal((await h().client.put('/1.1/larder/settings', { richPresenceAudience: null }, { master: true })).status, 200);
    assert.equal(sx.messages.filter(isPath(ONLINE)).length, 0);
    await sa.close();
    await sx.close();
  });

  test('a presence change is fanned out to online friends only, when richMsgEnabled', async () => {
    const sa = await connect(a);
    const sx = await connect(stranger);
    const res = await h().client.post(ME, { config: [{ key: 'score', value: '10' }] }, { session: b.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await sa.next(isPath(UPDATE, b.objectId)), { header: { path: UPDATE }, body: { userId: b.objectId } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sx.messages.filter(isPath(UPDATE)).length, 0);
    // Turned off: no more updates nor online messages.
    await configurePresence(h(), { enableRichMsg: false, enableOnlineMsg: false });
    h().app.clock = () => new Date(Date.now() + 3600_000);
    assert.equal((await h().client.post(ME, { config: [{ key: 'score', value: '11' }] }, { session: b.sessionToken })).status, 200);
    const sb = await connect(b);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(sa.messages.filter((m) => isPath(UPDATE)(m) || isPath(ONLINE)(m)).length, 0);
    await configurePresence(h(), { enableRichMsg: true, enableOnlineMsg: true });
    await sb.close();
    await sa.next(isPath(ONLINE, b.objectId));
    await sa.close();
    await sx.close();
  });

  test('notifyUsers reaches every open connection of the named users', async () => {
    const sa1 = await connect(a);
    const sa2 = await connect(a);
    const sx = await connect(stranger);
    await notifyUsers(h().app, [a.objectId, 'nobody'], 'friendship/request/apply', { requestId: 'r1' });
    for (const s of [sa1, sa2]) assert.deepEqual(await s.next(isPath('friendship/request/apply')), { header: { path: 'friendship/request/apply' }, body: { requestId: 'r1' } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sx.messages.length, 0);
    for (const s of [sa1, sa2, sx]) await s.close();
  });

  test('a silent connection is closed after the idle timeout; a heartbeating one stays', async () => {
    await h().client.put('/1.1/larder/settings', { friendsIdleTimeoutMs: 300 }, { master: true });
    const quiet = await connect(a);
    const alive = await connect(b);
    const beat = setInterval(() => alive.ws.send('{}'), 80);
    try {
      assert.equal(await quiet.closed(3000), 4000);
      assert.equal(alive.ws.readyState, WebSocket.OPEN);
    } finally {
      clearInterval(beat);
      await h().client.put('/1.1/larder/settings', { friendsIdleTimeoutMs: null }, { master: true });
      await alive.close();
    }
  });

  test('a revoked session is kicked: /session/kick, then close 4001', async () => {
    const k = await seedUser(h());
    const s = await connect(k);
    const other = await connect(a);
    const res = await h().client.put(`/1.1/users/${k.objectId}/refreshSessionToken`, {}, { session: k.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await s.next((m) => m?.header?.path === '/session/kick'), { header: { path: '/session/kick' }, body: {} });
    assert.equal(await s.closed(3000), 4001);
    assert.equal(other.ws.readyState, WebSocket.OPEN);
    // The new token connects.
    const again = await openSocket(base, res.body.sessionToken);
    await again.close();
    await other.close();
  });

  test('turning the service off closes open connections', async () => {
    const s = await connect(a);
    await h().client.put('/1.1/larder/settings', { richPresenceSync: false, friendsIdleTimeoutMs: 200 }, { master: true });
    try {
      assert.equal(await s.closed(3000), 4003);
    } finally {
      await h().client.put('/1.1/larder/settings', { richPresenceSync: true, friendsIdleTimeoutMs: null }, { master: true });
    }
  });
});

// Two apps on one database, as two Larder processes would be (on PGlite: the same engine).
for (const engine of engines()) {
  describe(`friends realtime across two app instances [${engine}]`, () => {
    let one: Harness & { stop(): Promise<void> };
    let two: Harness & { stop(): Promise<void> };
    before(async () => {
      one = await startHarness(engine);
      two = await startHarness(engine, { sameDatabaseAs: one });
    });
    after(async () => {
      await two?.stop();
      await one?.stop();
    });

    test('a client on one instance sees a friend on the other come online, change presence and leave', async () => {
      await enableFriends(one);
      await configurePresence(one, { enableRichMsg: true, enableOnlineMsg: true, richPresenceFields: [{ key: 'score', type: 'variable' }] });
      // The second instance hears of the settings change through the invalidation channel.
      await eventually(async () => two.app.settings.richPresenceSync === true, 5000, 'settings on the second instance');
      const [a, b] = await seedUsers(one, 2);
      await befriend(one, a.objectId, b.objectId);
      const sa = await openSocket(await one.listen(), a.sessionToken);
      const sb = await openSocket(await two.listen(), b.sessionToken);
      assert.deepEqual((await sa.next(isPath(ONLINE, b.objectId))).body, { userId: b.objectId, online: true });
      assert.equal(await onlineOf(one, a, b.objectId), true);
      assert.equal((await two.client.post(ME, { config: [{ key: 'score', value: '7' }] }, { session: b.sessionToken })).status, 200);
      await sa.next(isPath(UPDATE, b.objectId));
      const seen = await one.client.get(USERS, { ids: b.objectId }, { session: a.sessionToken });
      assert.deepEqual(seen.body.results, [{ online: true, richPresence: { score: '7' } }]);
      await sb.close();
      assert.deepEqual((await sa.next(isPath(ONLINE, b.objectId))).body, { userId: b.objectId, online: false });
      // A long recipient list is split under NOTIFY's 8000-byte payload limit; each user gets it once.
      const many = [...Array.from({ length: 1500 }, (_, i) => `someone${String(i).padStart(16, '0')}`), a.objectId];
      await notifyUsers(two.app, many, 'friendship/request/apply', { requestId: 'bulk' });
      await sa.next((m) => m?.body?.requestId === 'bulk');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(sa.messages.filter((m: any) => m?.body?.requestId === 'bulk').length, 0);
      await sa.close();
    });

    test('the users of a process whose lease ran out go offline, and friends are told', async () => {
      const [a, b] = await seedUsers(one, 2);
      await befriend(one, a.objectId, b.objectId);
      const sa = await openSocket(await one.listen(), a.sessionToken);
      // A process that died holding b's connection: its lease runs out in 300 ms.
      await one.db.query(sql`INSERT INTO _larder_friend_processes (process_id, lease_until) VALUES ('ghost', now() + interval '300 milliseconds')`);
      await one.db.query(sql`INSERT INTO _larder_online (user_id, process_id) VALUES (${b.objectId}, 'ghost')`);
      assert.equal(await onlineOf(one, a, b.objectId), true);
      const started = Date.now();
      assert.deepEqual((await sa.next(isPath(ONLINE, b.objectId), 5000)).body, { userId: b.objectId, online: false });
      assert.ok(Date.now() - started < 3000, `swept after ${Date.now() - started} ms`);
      assert.equal(await onlineOf(one, a, b.objectId), false);
      assert.equal((await one.db.query(sql`SELECT 1 FROM _larder_online WHERE process_id = 'ghost'`)).length, 0);
      await sa.close();
    });
  });
}

