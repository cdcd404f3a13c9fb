import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { configurePresence, enableFriends, eventually, openSocket, type TestSocket } from './harness/presence-helpers.ts';
import { seedUsers, type SeededUser } from './harness/seed-users.ts';

const APPLY = 'friendship/request/apply';
const ACCEPT = 'friendship/request/accept';
const REFUND = 'friendship/request/refund';
const isPath = (path: string, requestId: string) => (m: any) => m?.header?.path === path && m.body?.requestId === requestId;

forEachEngine('friendships: realtime notifications and presence in friend lists', (h) => {
  let base = '';
  const open: TestSocket[] = [];
  const connect = async (u: SeededUser) => {
    const s = await openSocket(base, u.sessionToken);
    open.push(s);
    return s;
  };

  before(async () => {
    base = await h().listen();
    await enableFriends(h(), { friendModel: 'mutual' });
    await configurePresence(h(), { enableRichMsg: true, enableOnlineMsg: true, richPresenceFields: [{ key: 'score', type: 'variable' }] });
  });
  after(async () => {
    for (const s of open) await s.close();
  });

  test('apply reaches the target; accept and decline reach the requester; nobody else hears', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    const [sa, sb, sc] = [await connect(a), await connect(b), await connect(c)];
    const r = await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: b.pointer }, { session: a.sessionToken });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const applyMsg = await sb.next(isPath(APPLY, r.body.objectId));
    assert.deepEqual(applyMsg, { header: { path: APPLY }, body: { requestId: r.body.objectId } });
    const acc = await h().client.put(`/1.1/users/friendshipRequests/${r.body.objectId}/accept`, {}, { session: b.sessionToken });
    assert.equal(acc.status, 200);
    assert.deepEqual(await sa.next(isPath(ACCEPT, r.body.objectId)), { header: { path: ACCEPT }, body: { requestId: r.body.objectId } });

    const r2 = await h().client.post('/1.1/users/friendshipRequests', { user: c.pointer, friend: b.pointer }, { session: c.sessionToken });
    await sb.next(isPath(APPLY, r2.body.objectId));
    await h().client.put(`/1.1/users/friendshipRequests/${r2.body.objectId}/decline`, {}, { session: b.sessionToken });
    await sc.next(isPath(REFUND, r2.body.objectId));
    // A refused request notifies nobody; a heard nothing about c's request.
    await h().client.post('/1.1/users/friendshipRequests', { user: c.pointer, friend: b.pointer }, { session: c.sessionToken });
    await new Promise((res) => setTimeout(res, 100));
    assert.equal(sa.messages.some((m: any) => m?.body?.requestId === r2.body.objectId), false);
    assert.equal(sb.messages.filter((m: any) => m?.header?.path === APPLY).length, 0);
  });

  test('friends-list shows a friend online with its rich presence; a pending requester stays hidden', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    const r = await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: b.pointer }, { session: a.sessionToken });
    await h().client.put(`/1.1/users/friendshipRequests/${r.body.objectId}/accept`, {}, { session: b.sessionToken });
    await connect(b);
    const set = await h().client.post('/friend/v1/rich-presence/users/me', { config: [{ key: 'score', value: '42' }] }, { session: b.sessionToken });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await eventually(async () => {
      const list = await h().client.get('/friend/v2/friends-list', {}, { session: a.sessionToken });
      return list.body.results[0]?.online === true;
    }, 5000, 'b online in a friends-list');
    const list = await h().client.get('/friend/v2/friends-list', { sort_field: 'online' }, { session: a.sessionToken });
    assert.equal(list.body.results[0].tdsUser.objectId, b.objectId);
    assert.deepEqual(list.body.results[0].richPresence, { score: '42' });
    // c sent b a request (c's half exists, friendStatus false): b's presence is not c's to see.
    await h().client.post('/1.1/users/friendshipRequests', { user: c.pointer, friend: b.pointer }, { session: c.sessionToken });
    const cl = await h().client.get('/friend/v2/friends-list', {}, { session: c.sessionToken });
    assert.deepEqual(cl.body.results, []);
  });
  test('friends-list sorts by a rich presence field (numbers numerically, users without it last)', async () => {
    const [a, b, c, d] = await seedUsers(h(), 4);
    for (const f of [b, c, d]) {
      const r = await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: f.pointer }, { session: a.sessionToken });
      await h().client.put(`/1.1/users/friendshipRequests/${r.body.objectId}/accept`, {}, { session: f.sessionToken });
    }
    assert.equal((await h().client.post('/friend/v1/rich-presence/users/me', { config: [{ key: 'score', value: '30' }] }, { session: b.sessionToken })).status, 200);
    assert.equal((await h().client.post('/friend/v1/rich-presence/users/me', { config: [{ key: 'score', value: '5' }] }, { session: c.sessionToken })).status, 200);
    const list = await h().client.get('/friend/v2/friends-list', { sort_field: 'rich_presence_score' }, { session: a.sessionToken });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.results.map((r: any) => r.tdsUser.objectId), [c.objectId, b.objectId, d.objectId]);
    const page = await h().client.get('/friend/v2/friends-list', { sort_field: 'rich_presence_score', limit: 1, skip: 1 }, { session: a.sessionToken });
    assert.deepEqual(page.body.results.map((r: any) => r.tdsUser.objectId), [b.objectId]);
    assert.equal(page.body.nextSkip, '2');
  });
});
