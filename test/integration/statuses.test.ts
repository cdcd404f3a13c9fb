// Statuses and inboxes over HTTP: fan-out to followers, private statuses, inbox access,
// deletion, and refused input, on every engine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { seedUsers } from './harness/seed-users.ts';
import { assertError } from './harness/user-helpers.ts';

const ptr = (objectId: string) => ({ __type: 'Pointer', className: '_User', objectId });
type U = { objectId: string; sessionToken: string };

function toFollowers(me: U, data: Record<string, unknown>, inboxType?: string) {
  return { query: { className: '_Follower', keys: 'follower', where: { user: ptr(me.objectId) } }, data: { source: ptr(me.objectId), ...data }, ...(inboxType ? { inboxType } : {}) };
}

async function inboxOf(h: Harness, u: U, query: Record<string, unknown> = {}) {
  return h.client.get('/1.1/subscribe/statuses', { owner: JSON.stringify(ptr(u.objectId)), ...query }, { session: u.sessionToken });
}

forEachEngine('statuses and inboxes', (h) => {
  test('a status reaches every follower (one INSERT for many), and nobody else', async () => {
    const [star, stranger, ...fans] = await seedUsers(h(), 42);
    for (const f of fans) assert.equal((await h().client.post(`/1.1/users/self/friendship/${star.objectId}`, {}, { session: f.sessionToken })).status, 200);
    const sent = await h().client.post('/1.1/statuses', toFollowers(star, { message: 'hi all' }), { session: star.sessionToken });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    assert.deepEqual(Object.keys(sent.body).sort(), ['createdAt', 'objectId']);
    for (const f of [fans[0], fans[39]]) {
      const box = await inboxOf(h(), f, { count: 1 });
      assert.equal(box.body.count, 1);
      assert.equal(box.body.results[0].message, 'hi all');
      assert.equal(box.body.results[0].inboxType, 'default');
      assert.deepEqual(box.body.results[0].source, ptr(star.objectId));
    }
    assert.deepEqual((await inboxOf(h(), stranger)).body.results, []);
    const counts = await h().client.get('/1.1/subscribe/statuses/count', { owner: JSON.stringify(ptr(fans[1].objectId)), inboxType: 'default' }, { session: fans[1].sessionToken });
    assert.deepEqual(counts.body, { total: 1, unread: 1 });
    // include the sender, keys, the status itself by id.
    const withSource = await inboxOf(h(), fans[2], { include: 'source', keys: 'source' });
    assert.equal(withSource.body.results[0].source.objectId, star.objectId);
    assert.equal(withSource.body.results[0].message, undefined);
    assert.equal(typeof withSource.body.results[0].messageId, 'number');
    const byId = await h().client.get(`/1.1/statuses/${sent.body.objectId}`);
    assert.equal(byId.body.message, 'hi all');
    const listed = await h().client.get('/1.1/statuses', { where: { source: ptr(star.objectId) } });
    assert.equal(listed.body.results.length, 1);
  });

  test('private statuses, custom inbox types, delete from an inbox, delete a status', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    const priv = await h().client.post('/1.1/statuses', { query: { className: '_User', where: { objectId: { $in: [b.objectId, c.objectId, '000000000000000000000000'] } } }, data: { message: 'psst' }, inboxType: 'private' }, { session: a.sessionToken });
    assert.equal(priv.status, 201, JSON.stringify(priv.body));
    const box = await inboxOf(h(), b, { inboxType: 'private' });
    assert.deepEqual(box.body.results.map((s: { message: string }) => s.message), ['psst']);
    assert.deepEqual(box.body.results[0].source, ptr(a.objectId), 'the sender is the source when none is given');
    const messageId = box.body.results[0].messageId;
    assertError(await h().client.delete('/1.1/subscribe/statuses/inbox', { session: c.sessionToken, query: { owner: JSON.stringify(ptr(b.objectId)), inboxType: 'private', messageId } }), 403, 1);
    assert.equal((await h().client.delete('/1.1/subscribe/statuses/inbox', { session: b.sessionToken, query: { owner: JSON.stringify(ptr(b.objectId)), inboxType: 'private', messageId } })).status, 200);
    assert.deepEqual((await inboxOf(h(), b, { inboxType: 'private' })).body.results, []);
    assertError(await h().client.delete('/1.1/subscribe/statuses/inbox', { session: b.sessionToken, query: { owner: JSON.stringify(ptr(b.objectId)), inboxType: 'private', messageId } }), 404, 1);
    // c still has it until the sender deletes the status.
    assert.equal((await inboxOf(h(), c, { inboxType: 'private' })).body.results.length, 1);
    assertError(await h().client.delete(`/1.1/statuses/${priv.body.objectId}`, { session: c.sessionToken }), 403, 1);
    assert.equal((await h().client.delete(`/1.1/statuses/${priv.body.objectId}`, { session: a.sessionToken })).status, 200);
    assert.deepEqual((await inboxOf(h(), c, { inboxType: 'private' })).body.results, []);
    assertError(await h().client.delete(`/1.1/statuses/${priv.body.objectId}`, { session: a.sessionToken }), 404, 1);
    // Reset of the unread count, by the owner, with the body the SDK sends.
    await h().client.post('/1.1/statuses', { query: { className: '_User', where: { objectId: c.objectId } }, data: { message: 'two' }, inboxType: 'news' }, { session: a.sessionToken });
    const before = await h().client.get('/1.1/subscribe/statuses/count', { owner: JSON.stringify(ptr(c.objectId)), inboxType: 'news' }, { session: c.sessionToken });
    assert.deepEqual(before.body, { total: 1, unread: 1 });
    assert.equal((await h().client.post('/1.1/subscribe/statuses/resetUnreadCount', { owner: ptr(c.objectId), inboxType: 'news' }, { session: c.sessionToken })).status, 200);
    const after = await h().client.get('/1.1/subscribe/statuses/count', { owner: JSON.stringify(ptr(c.objectId)), inboxType: 'news' }, { master: true });
    assert.deepEqual(after.body, { total: 1, unread: 0 });
  });

  test('refused: no session, a forged source, bad bodies, someone else\'s inbox', async () => {
    const [a, b] = await seedUsers(h(), 2);
    assertError(await h().client.post('/1.1/statuses', toFollowers(a, { message: 'x' })), 403, 206);
    assertError(await h().client.post('/1.1/statuses', toFollowers(a, { message: 'x' }), { session: b.sessionToken }), 403, 1);
    assertError(await h().client.post('/1.1/statuses', { query: {}, data: 'x' }, { session: a.sessionToken }), 400, 107);
    assertError(await h().client.post('/1.1/statuses', { ...toFollowers(a, {}), inboxType: 'bad type' }, { session: a.sessionToken }), 400, 1);
    assertError(await h().client.post('/1.1/statuses', { query: { className: 'Post', where: {} }, data: { message: 'x' } }, { session: a.sessionToken }), 400, 102);
    assertError(await h().client.post('/1.1/statuses', { query: { className: 'bad-class' }, data: { message: 'x' } }, { session: a.sessionToken }), 400, 103);
    assertError(await h().client.post('/1.1/statuses', { query: { className: '_User', where: { objectId: 'x' } }, data: { messageId: 5 } }, { session: a.sessionToken }), 400, 117);
    assertError(await inboxOf(h(), { objectId: a.objectId, sessionToken: b.sessionToken }), 403, 1);
    assert.equal((await h().client.get('/1.1/subscribe/statuses', { owner: JSON.stringify(ptr(a.objectId)) }, { master: true })).status, 200);
    assertError(await h().client.get('/1.1/subscribe/statuses', { owner: '{bad' }, { session: a.sessionToken }), 400, 107);
    assertError(await inboxOf(h(), a, { sinceId: '-1' }), 400, 1);
    // A refused send writes nothing.
    const count = await h().client.get('/1.1/classes/_Status', { count: 1, limit: 0, where: { source: ptr(b.objectId) } }, { master: true });
    assert.equal(count.body.count, 0);
  });
});
