/**
 * LiveQuery end to end with the official JS SDK (leancloud-storage's LiveQuery bundle over
 * leancloud-realtime and leancloud-realtime-plugin-live-query): all six events from real writes
 * (REST, batch, users), ACLs and roles at event time, unsubscribe, a dropped connection that
 * reconnects without missing anything, and friendship classes. On every engine.
 */
import assert from 'node:assert/strict';
import type { Duplex } from 'node:stream';
import { after, before, test } from 'node:test';
import { forEachEngine, TEST_KEYS } from './harness/engines.ts';
import { CommandType, openRawClient } from './harness/livequery-client.ts';
import { closeLiveQuerySdk, liveQuerySdk, recordEvents, type AVNamespace } from './harness/livequery-sdk.ts';
import { signUp, uniqueName } from './harness/user-helpers.ts';

const PUBLIC = { '*': { read: true, write: true } };
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachEngine('livequery: the JS SDK end to end', (h) => {
  let AV: AVNamespace;
  const sockets = new Set<Duplex>();

  before(async () => {
    const base = await h().listen();
    // Kept so that a test can cut the SDK's connection as a network failure would.
    h().server.server.on('upgrade', (_req, socket: Duplex) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    AV = liveQuerySdk(base);
  });
  after(() => closeLiveQuerySdk(AV));

  test('create, update, enter, leave, delete from REST and batch writes, with updatedKeys', async () => {
    const c = h().client;
    const live = await new AV.Query('LqRoom').equalTo('room', 'a').subscribe();
    const rec = recordEvents(live);
    const created = await c.post('/1.1/classes/LqRoom', { room: 'a', n: 1, ACL: PUBLIC });
    assert.equal(created.status, 201);
    const id = created.body.objectId;
    const e1 = await rec.next((e) => e.op === 'create');
    assert.equal(e1.object.objectId, id);
    assert.equal(e1.object.n, 1);
    assert.equal(e1.updatedKeys, undefined);

    await c.put(`/1.1/classes/LqRoom/${id}`, { n: 2 });
    const e2 = await rec.next((e) => e.op === 'update');
    assert.equal(e2.object.n, 2);
    assert.deepEqual(e2.updatedKeys, ['n']);

    await c.put(`/1.1/classes/LqRoom/${id}`, { room: 'b' });
    const e3 = await rec.next((e) => e.op === 'leave');
    assert.equal(e3.object.room, 'b');
    assert.deepEqual(e3.updatedKeys, ['room']);

    const batch = await c.post('/1.1/batch', { requests: [{ method: 'PUT', path: `/1.1/classes/LqRoom/${id}`, body: { room: 'a', n: { __op: 'Increment', amount: 5 } } }] });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    const e4 = await rec.next((e) => e.op === 'enter');
    assert.equal(e4.object.n, 7);
    assert.deepEqual([...(e4.updatedKeys ?? [])].sort(), ['n', 'room']);

    await c.post('/1.1/classes/LqRoom', { room: 'other', n: 1 });
    await c.delete(`/1.1/classes/LqRoom/${id}`);
    const e5 = await rec.next((e) => e.op === 'delete');
    assert.equal(e5.object.objectId, id);
    assert.deepEqual(rec.events, [], 'nothing for objects outside the query');
    await live.unsubscribe();
  });

  test('batch/save (Swift, Objective-C, Java) and sign-up writes cause events too', async () => {
    const live = await new AV.Query('LqSaved').equalTo('kind', 'k').subscribe();
    const rec = recordEvents(live);
    const saved = await h().client.post('/1.1/batch/save', { requests: [{ method: 'POST', path: '/1.1/classes/LqSaved', body: { kind: 'k', __internalId: 'i1' }, new: true }] });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal((await rec.next((e) => e.op === 'create')).object.kind, 'k');
    await live.unsubscribe();
  });

  test('login fires for a matching user; hidden fields never travel', async () => {
    const u = await signUp(h());
    // _User queries are for the master key by default, and a subscription is the find it stands for.
    const denied = await h().client.post('/1.1/LiveQuery/subscribe', { query: { className: '_User', where: {} }, id: 'user-sub-1' }, { session: u.sessionToken });
    assert.equal(denied.status, 403);
    const open = await h().client.put('/1.1/larder/classes/_User/permissions', { find: { onlySignInUsers: true } }, { master: true });
    assert.equal(open.status, 200, JSON.stringify(open.body));
    await AV.User.become(u.sessionToken);
    const live = await new AV.Query('_User').equalTo('username', u.username).subscribe();
    const rec = recordEvents(live);
    const res = await h().client.post('/1.1/login', { username: u.username, password: u.password });
    assert.equal(res.status, 200);
    const e = await rec.next((x) => x.op === 'login');
    assert.equal(e.object.objectId, u.objectId);
    for (const hidden of ['password', 'sessionToken', 'authData', 'salt']) assert.equal(e.object[hidden], undefined, hidden);
    await live.unsubscribe();
    await AV.User.logOut();
  });

  test('the subscriber ACL and roles apply at event time; the master key gets no bypass', async () => {
    const c = h().client;
    const me = await signUp(h());
    const other = await signUp(h());
    await AV.User.become(me.sessionToken);
    const live = await new AV.Query('LqSecret').equalTo('tag', 't').subscribe();
    const rec = recordEvents(live);
    const roleName = uniqueName('lqrole');
    const role = await c.post('/1.1/roles', { name: roleName, ACL: PUBLIC }, { master: true });
    assert.equal(role.status, 201, JSON.stringify(role.body));

    await c.post('/1.1/classes/LqSecret', { tag: 't', who: 'other-only', ACL: { [other.objectId]: { read: true, write: true } } }, { master: true });
    await c.post('/1.1/classes/LqSecret', { tag: 't', who: 'role-only', ACL: { [`role:${roleName}`]: { read: true } } }, { master: true });
    await c.post('/1.1/classes/LqSecret', { tag: 't', who: 'mine', ACL: { [me.objectId]: { read: true } } }, { master: true });
    assert.equal((await rec.next((e) => e.op === 'create')).object.who, 'mine');

    // Joining the role after subscribing counts from the next event on.
    const join = await c.put(`/1.1/roles/${role.body.objectId}`, { users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: me.objectId }] } }, { master: true });
    assert.equal(join.status, 200, JSON.stringify(join.body));
    await c.post('/1.1/classes/LqSecret', { tag: 't', who: 'role-now', ACL: { [`role:${roleName}`]: { read: true } } }, { master: true });
    assert.equal((await rec.next((e) => e.op === 'create')).object.who, 'role-now');

    // An ACL change that takes the object away is a leave without its new content.
    const mine = await c.post('/1.1/classes/LqSecret', { tag: 't', who: 'was-mine', secret: 's', ACL: { [me.objectId]: { read: true } } }, { master: true });
    await rec.next((e) => e.op === 'create' && e.object.who === 'was-mine');
    await c.put(`/1.1/classes/LqSecret/${mine.body.objectId}`, { secret: 'new', ACL: { [other.objectId]: { read: true } } }, { master: true });
    const left = await rec.next((e) => e.op === 'leave');
    assert.equal(left.object.objectId, mine.body.objectId);
    assert.equal(left.object.secret, undefined, 'the new content is not sent');
    await quiet(300);
    assert.deepEqual(rec.events.map((e) => e.object.who), [], 'objects the subscriber may not read are never pushed');
    await live.unsubscribe();
    await AV.User.logOut();

    // Subscribed with the master key and no session: the subscription is anonymous.
    const base = (await h().listen()).replace(/^http/, 'ws');
    const raw = await openRawClient(`${base}/livequery`, 'lc.protobuf2.3');
    raw.send({ cmd: CommandType.login, i: 1, appId: TEST_KEYS.appId, installationId: 'master-sub-1', service: 1 });
    await raw.next((m) => m.i === 1);
    const masterSub = await c.post('/1.1/LiveQuery/subscribe', { query: { className: 'LqSecret', where: { tag: 'm' } }, id: 'master-sub-1' }, { master: true });
    assert.equal(masterSub.status, 200);
    await c.post('/1.1/classes/LqSecret', { tag: 'm', who: 'private', ACL: { [me.objectId]: { read: true } } }, { master: true });
    await c.post('/1.1/classes/LqSecret', { tag: 'm', who: 'public', ACL: PUBLIC }, { master: true });
    const push = await raw.next((m) => m.cmd === CommandType.data);
    assert.equal(JSON.parse(push.dataMessage.msg[0].data).object.who, 'public');
    await quiet(300);
    assert.equal(raw.received.filter((m) => m.cmd === CommandType.data).length, 0, 'the private object was not pushed');
    await raw.close();
  });

  test('unsubscribe stops the events', async () => {
    const live = await new AV.Query('LqUnsub').subscribe();
    const rec = recordEvents(live);
    await h().client.post('/1.1/classes/LqUnsub', { v: 1 });
    await rec.next((e) => e.op === 'create');
    await live.unsubscribe();
    await h().client.post('/1.1/classes/LqUnsub', { v: 2 });
    await quiet(500);
    assert.deepEqual(rec.events, []);
  });

  test('a dropped connection reconnects and misses nothing that happened meanwhile', async () => {
    const live = await new AV.Query('LqDrop').subscribe();
    const rec = recordEvents(live);
    const realtime = AV._config.realtime;
    const reconnected = new Promise<void>((resolve) => realtime.once('reconnect', () => resolve()));
    const disconnected = new Promise<void>((resolve) => realtime.once('disconnect', () => resolve()));
    for (const s of sockets) s.destroy();
    await disconnected;
    // Written while the client is away (it retries after about a second).
    await h().client.post('/1.1/classes/LqDrop', { v: 'while-away' });
    await reconnected;
    const e = await rec.next((x) => x.op === 'create');
    assert.equal(e.object.v, 'while-away');
    await h().client.post('/1.1/classes/LqDrop', { v: 'after' });
    assert.equal((await rec.next((x) => x.op === 'create')).object.v, 'after');
    await quiet(300);
    assert.deepEqual(rec.events, [], 'each event once');
    await live.unsubscribe();
  });

  test('_Followee and _FriendshipRequest subscriptions: follow and friend requests', async () => {
    const c = h().client;
    const me = await signUp(h());
    const fan = await signUp(h());
    const meRef = { __type: 'Pointer', className: '_User', objectId: me.objectId };
    await AV.User.become(me.sessionToken);
    const followers = await new AV.Query('_Followee').equalTo('followee', AV.Object.createWithoutData('_User', me.objectId)).subscribe();
    const recF = recordEvents(followers);
    const follow = await c.post(`/1.1/users/${fan.objectId}/friendship/${me.objectId}`, {}, { session: fan.sessionToken });
    assert.ok(follow.status === 200 || follow.status === 201, JSON.stringify(follow.body));
    const f = await recF.next((e) => e.op === 'create');
    assert.equal((f.object.user as { objectId: string }).objectId, fan.objectId);

    const settings = await c.put('/1.1/larder/settings', { richPresenceSync: true, friendModel: 'mutual' }, { master: true });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const requests = await new AV.Query('_FriendshipRequest').equalTo('friend', AV.Object.createWithoutData('_User', me.objectId)).subscribe();
    const recR = recordEvents(requests);
    const req = await c.post('/1.1/users/friendshipRequests', { user: { __type: 'Pointer', className: '_User', objectId: fan.objectId }, friend: meRef }, { session: fan.sessionToken });
    assert.equal(req.status, 201, JSON.stringify(req.body));
    const r = await recR.next((e) => e.op === 'create');
    assert.equal(r.object.objectId, req.body.objectId);
    const accepted = await c.put(`/1.1/users/friendshipRequests/${req.body.objectId}/accept`, {}, { session: me.sessionToken });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const u = await recR.next((e) => e.op === 'update' || e.op === 'leave' || e.op === 'delete');
    assert.equal(u.object.objectId, req.body.objectId);
    await requests.unsubscribe();
    await followers.unsubscribe();
    await AV.User.logOut();
  });
});
