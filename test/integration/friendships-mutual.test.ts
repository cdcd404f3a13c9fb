import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { friendIdsOf } from '../../src/modules/friends/friendship/friend-ids.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { seedUser, seedUsers, type SeededUser } from './harness/seed-users.ts';
import { assertError } from './harness/user-helpers.ts';

async function settings(h: Harness, change: Record<string, unknown>): Promise<void> {
  const res = await h.client.put('/1.1/larder/settings', change, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

function apply(h: Harness, from: SeededUser, to: SeededUser, friendship?: Record<string, unknown>) {
  return h.client.post('/1.1/users/friendshipRequests', { user: from.pointer, friend: to.pointer, ...(friendship ? { friendship } : {}) }, { session: from.sessionToken });
}

async function followeeRows(h: Harness, owner: string): Promise<Record<string, any>[]> {
  const rows = await h.db.query<{ data: Record<string, any>; rperm: string[] }>(sql`SELECT data, rperm FROM "_Followee" WHERE data->'user'->>'objectId' = ${owner} ORDER BY "createdAt"`);
  return rows.map((r) => ({ ...r.data, rperm: r.rperm }));
}

async function befriend(h: Harness, a: SeededUser, b: SeededUser): Promise<string> {
  const r = await apply(h, a, b);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const acc = await h.client.put(`/1.1/users/friendshipRequests/${r.body.objectId}/accept`, {}, { session: b.sessionToken });
  assert.equal(acc.status, 200, JSON.stringify(acc.body));
  return r.body.objectId;
}

forEachEngine('friendships: mutual model', (h) => {
  before(async () => {
    await settings(h(), { richPresenceSync: true, friendModel: 'mutual' });
  });

  test('a request creates a pending _FriendshipRequest and the requester half with attrs', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const res = await apply(h(), a, b, { group: 'school' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(typeof res.body.objectId, 'string');
    assert.equal(typeof res.body.createdAt, 'string');
    const [req] = await h().db.query<{ data: any; rperm: string[] }>(sql`SELECT data, rperm FROM "_FriendshipRequest" WHERE "objectId" = ${res.body.objectId}`);
    assert.equal(req.data.status, 'pending');
    assert.equal(req.data.user.objectId, a.objectId);
    assert.equal(req.data.friend.objectId, b.objectId);
    assert.deepEqual(req.rperm.sort(), [a.objectId, b.objectId].sort());
    const rows = await followeeRows(h(), a.objectId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].followee.objectId, b.objectId);
    assert.equal(rows[0].friendStatus, false);
    assert.equal(rows[0].group, 'school');
    assert.deepEqual(await followeeRows(h(), b.objectId), []);
  });

  test('accept: both halves friendStatus true, the accepter attrs on its half; only the target answers', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    const r = await apply(h(), a, b, { group: 'work' });
    const id = r.body.objectId;
    assertError(await h().client.put(`/1.1/users/friendshipRequests/${id}/accept`, {}, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.put(`/1.1/users/friendshipRequests/${id}/accept`, {}, { session: c.sessionToken }), 403, 1);
    const acc = await h().client.put(`/1.1/users/friendshipRequests/${id}/accept`, { friendship: { remark: 'old pal' } }, { session: b.sessionToken });
    assert.equal(acc.status, 200, JSON.stringify(acc.body));
    assert.equal(acc.body.objectId, id);
    assert.equal(typeof acc.body.updatedAt, 'string');
    const [req] = await h().db.query<{ data: any }>(sql`SELECT data FROM "_FriendshipRequest" WHERE "objectId" = ${id}`);
    assert.equal(req.data.status, 'accepted');
    const ab = await followeeRows(h(), a.objectId);
    const ba = await followeeRows(h(), b.objectId);
    assert.equal(ab.length, 1);
    assert.equal(ba.length, 1);
    assert.equal(ab[0].friendStatus, true);
    assert.equal(ab[0].group, 'work');
    assert.equal(ba[0].friendStatus, true);
    assert.equal(ba[0].remark, 'old pal');
    assert.equal(ba[0].followee.objectId, a.objectId);
    assertError(await h().client.put(`/1.1/users/friendshipRequests/${id}/accept`, {}, { session: b.sessionToken }), 400, 1);
    assert.deepEqual(await friendIdsOf(h().app, a.objectId), [b.objectId]);
    assert.deepEqual(await friendIdsOf(h().app, b.objectId), [a.objectId]);
    assert.deepEqual(await friendIdsOf(h().app, c.objectId), []);
  });

  test('decline: re-applying errors until the requester deletes the request', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const id = (await apply(h(), a, b)).body.objectId;
    const dec = await h().client.put(`/1.1/users/friendshipRequests/${id}/decline`, {}, { session: b.sessionToken });
    assert.equal(dec.status, 200, JSON.stringify(dec.body));
    assert.equal(dec.body.objectId, id);
    const [req] = await h().db.query<{ data: any }>(sql`SELECT data FROM "_FriendshipRequest" WHERE "objectId" = ${id}`);
    assert.equal(req.data.status, 'declined');
    assertError(await h().client.put(`/1.1/users/friendshipRequests/${id}/decline`, {}, { session: b.sessionToken }), 400, 1);
    const again = await apply(h(), a, b);
    assertError(again, 400, 137);
    assert.match(again.body.error, /declined/);
    // The target cannot delete the request (its ACL lets only the requester write).
    assertError(await h().client.delete(`/1.1/classes/_FriendshipRequest/${id}`, { session: b.sessionToken }), 403, 1);
    const del = await h().client.delete(`/1.1/classes/_FriendshipRequest/${id}`, { session: a.sessionToken });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal((await apply(h(), a, b)).status, 201);
  });

  test('bad requests: duplicate, self, unknown user, someone else as user, bad pointer, unknown request', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    assert.equal((await apply(h(), a, b)).status, 201);
    assertError(await apply(h(), a, b), 400, 137);
    assertError(await apply(h(), a, a), 400, 1);
    const ghost = { ...c, objectId: 'aaaaaaaaaaaaaaaaaaaaaaaa', pointer: { __type: 'Pointer' as const, className: '_User' as const, objectId: 'aaaaaaaaaaaaaaaaaaaaaaaa' } };
    assertError(await apply(h(), a, ghost), 400, 211);
    assertError(await h().client.post('/1.1/users/friendshipRequests', { user: c.pointer, friend: b.pointer }, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: { __type: 'Pointer', className: 'Post', objectId: b.objectId } }, { session: a.sessionToken }), 400, 106);
    assertError(await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: b.pointer, friendship: { friendStatus: true } }, { session: c.sessionToken }), 403, 1);
    assertError(await h().client.post('/1.1/users/friendshipRequests', { user: c.pointer, friend: b.pointer, friendship: { friendStatus: true } }, { session: c.sessionToken }), 400, 117);
    assertError(await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: b.pointer }), 403, 206);
    assertError(await h().client.put('/1.1/users/friendshipRequests/zzzzzzzzzzzzzzzzzzzzzzzz/accept', {}, { session: b.sessionToken }), 404, 101);
    // Nothing half-written by the refused attempts.
    const [{ n }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM "_FriendshipRequest" WHERE data->'user'->>'objectId' = ${c.objectId}`);
    assert.equal(n, 0);
    assert.deepEqual(await followeeRows(h(), c.objectId), []);
  });

  test('already friends: a new request errors; the master key may act for any user', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await befriend(h(), a, b);
    assertError(await apply(h(), a, b), 400, 137);
    const [c, d] = await seedUsers(h(), 2);
    const r = await h().client.post('/1.1/users/friendshipRequests', { user: c.pointer, friend: d.pointer }, { master: true });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const acc = await h().client.put(`/1.1/users/friendshipRequests/${r.body.objectId}/accept`, {}, { master: true });
    assert.equal(acc.status, 200);
    assert.deepEqual(await friendIdsOf(h().app, c.objectId), [d.objectId]);
  });

  test('deleting a friend removes both halves and the requests; 221 when absent; re-apply allowed', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await befriend(h(), a, b);
    assertError(await h().client.delete(`/1.1/users/${b.objectId}/friendship/${a.objectId}`, { session: a.sessionToken }), 403, 1);
    const del = await h().client.delete(`/1.1/users/self/friendship/${b.objectId}`, { session: a.sessionToken });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(await followeeRows(h(), a.objectId), []);
    assert.deepEqual(await followeeRows(h(), b.objectId), []);
    const del2 = await h().client.delete(`/1.1/users/${a.objectId}/friendship/${b.objectId}`, { session: a.sessionToken });
    assertError(del2, 404, 221);
    assert.equal((await apply(h(), b, a)).status, 201);
  });

  test('updating friendship attrs: the caller half only; 221 without a friendship; no forging', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    await befriend(h(), a, b);
    const up = await h().client.put(`/1.1/users/self/friendship/${b.objectId}`, { friendship: { remark: 'bestie', score: 3 } }, { session: a.sessionToken });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.remark, 'bestie');
    assert.equal(up.body.followee.objectId, b.objectId);
    assert.equal((await followeeRows(h(), a.objectId))[0].score, 3);
    assert.equal((await followeeRows(h(), b.objectId))[0].remark, undefined);
    assertError(await h().client.put(`/1.1/users/self/friendship/${c.objectId}`, { friendship: { remark: 'x' } }, { session: a.sessionToken }), 404, 221);
    assertError(await h().client.put(`/1.1/users/self/friendship/${b.objectId}`, { friendship: { friendStatus: false } }, { session: a.sessionToken }), 400, 117);
    assertError(await h().client.put(`/1.1/users/self/friendship/${b.objectId}`, { friendship: { score: 'text' } }, { session: a.sessionToken }), 400, 111);
  });

  test('friend lists: /1.1/users/self/friends and /friend/v2/friends-list, blocked users filtered', async () => {
    const [a, b, c, d] = await seedUsers(h(), 4);
    await befriend(h(), a, b);
    await befriend(h(), c, a);
    await apply(h(), a, d); // pending: not a friend
    const list = await h().client.get('/1.1/users/self/friends', { include: 'followee', order: 'createdAt' }, { session: a.sessionToken });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.results.map((r: any) => r.followee.objectId), [b.objectId, c.objectId]);
    assert.equal(list.body.results[0].followee.username, b.username);
    const v2 = await h().client.get('/friend/v2/friends-list', { limit: 1 }, { session: a.sessionToken });
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    assert.equal(v2.body.results.length, 1);
    assert.equal(v2.body.isLastPage, false);
    assert.deepEqual(Object.keys(v2.body.results[0]).sort(), ['online', 'richPresence', 'tdsUser']);
    assert.equal(v2.body.results[0].tdsUser.objectId, c.objectId, 'newest friendship first');
    assert.equal(v2.body.results[0].online, false);
    assert.deepEqual(v2.body.results[0].richPresence, {});
    assert.equal(v2.body.results[0].tdsUser.sessionToken, undefined);
    const page2 = await h().client.get('/friend/v2/friends-list', { limit: 1, skip: v2.body.nextSkip }, { session: a.sessionToken });
    assert.deepEqual(page2.body.results.map((r: any) => r.tdsUser.objectId), [b.objectId]);
    assert.equal(page2.body.isLastPage, true);
    // Blocking b hides it from a's lists and from a's presence audience.
    assert.equal((await h().client.post(`/1.1/users/self/friendBlocklist/${b.objectId}`, {}, { session: a.sessionToken })).status, 200);
    const after = await h().client.get('/1.1/users/self/friends', {}, { session: a.sessionToken });
    assert.deepEqual(after.body.results.map((r: any) => r.followee.objectId), [c.objectId]);
    const v2after = await h().client.get('/friend/v2/friends-list', {}, { session: a.sessionToken });
    assert.deepEqual(v2after.body.results.map((r: any) => r.tdsUser.objectId), [c.objectId]);
    assert.deepEqual(await friendIdsOf(h().app, a.objectId), [c.objectId]);
    assert.deepEqual(await friendIdsOf(h().app, b.objectId), []);
    assertError(await h().client.get('/friend/v2/friends-list', { limit: 501 }, { session: a.sessionToken }), 400, 102);
    assertError(await h().client.get('/friend/v2/friends-list', {}, { master: true }), 403, 206);
  });

  test('block list: blocked users cannot send requests; list, unblock, 221, limit 100', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const blk = await h().client.post(`/1.1/users/self/friendBlocklist/${b.objectId}`, {}, { session: a.sessionToken });
    assert.equal(blk.status, 200, JSON.stringify(blk.body));
    assert.equal(blk.body.blockedUser.objectId, b.objectId);
    assert.equal((await h().client.post(`/1.1/users/self/friendBlocklist/${b.objectId}`, {}, { session: a.sessionToken })).status, 200, 'blocking twice is harmless');
    assertError(await apply(h(), b, a), 403, 1);
    assertError(await apply(h(), a, b), 403, 1);
    const list = await h().client.get('/1.1/users/self/friendBlocklist', { include: 'blockedUser' }, { session: a.sessionToken });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.results.length, 1);
    assert.equal(list.body.results[0].blockedUser.username, b.username);
    // b cannot see that a blocked it.
    assert.deepEqual((await h().client.get('/1.1/users/self/friendBlocklist', {}, { session: b.sessionToken })).body.results, []);
    const v2 = await h().client.get('/friend/v2/block-list', {}, { session: a.sessionToken });
    assert.deepEqual(v2.body.results.map((r: any) => r.tdsUser.objectId), [b.objectId]);
    assert.equal((await h().client.delete(`/1.1/users/self/friendBlocklist/${b.objectId}`, { session: a.sessionToken })).status, 200);
    assertError(await h().client.delete(`/1.1/users/self/friendBlocklist/${b.objectId}`, { session: a.sessionToken }), 404, 221);
    assert.equal((await apply(h(), b, a)).status, 201);
    assertError(await h().client.post(`/1.1/users/self/friendBlocklist/${a.objectId}`, {}, { session: a.sessionToken }), 400, 1);
    // 100 blocked users (seeded directly), then the 101st is refused.
    const c = await seedUser(h());
    await h().db.query(sql`INSERT INTO "_FriendBlocklist" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      SELECT 'blk' || g || ${c.objectId}, now(), now(), '{}'::jsonb, ARRAY[${c.objectId}]::text[], ARRAY[${c.objectId}]::text[],
        jsonb_build_object('user', jsonb_build_object('__type','Pointer','className','_User','objectId',${c.objectId}::text),
          'blockedUser', jsonb_build_object('__type','Pointer','className','_User','objectId','seed' || g))
      FROM generate_series(1, 100) g`);
    assertError(await h().client.post(`/1.1/users/self/friendBlocklist/${a.objectId}`, {}, { session: c.sessionToken }), 400, 154);
    assertError(await h().client.post('/friend/v2/block', { objectId: a.objectId }, { session: c.sessionToken }), 400, 154);
  });

  test('ACL: shared rows are read by both users only; private by the owner; public by everyone', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    await befriend(h(), a, b);
    const seen = async (u: SeededUser) =>
      (await h().client.get('/1.1/classes/_Followee', { where: { user: a.pointer } }, { session: u.sessionToken })).body.results.length;
    assert.equal(await seen(a), 1);
    assert.equal(await seen(b), 1);
    assert.equal(await seen(c), 0);
    await settings(h(), { friendshipACL: 'private' });
    try {
      const [d, e] = await seedUsers(h(), 2);
      const r = await apply(h(), d, e);
      // The target still sees the request it must answer.
      const reqs = await h().client.get('/1.1/classes/_FriendshipRequest', { where: { friend: e.pointer } }, { session: e.sessionToken });
      assert.deepEqual(reqs.body.results.map((x: any) => x.objectId), [r.body.objectId]);
      await h().client.put(`/1.1/users/friendshipRequests/${r.body.objectId}/accept`, {}, { session: e.sessionToken });
      const own = await h().client.get('/1.1/classes/_Followee', { where: { user: d.pointer } }, { session: d.sessionToken });
      assert.equal(own.body.results.length, 1);
      const other = await h().client.get('/1.1/classes/_Followee', { where: { user: d.pointer } }, { session: e.sessionToken });
      assert.equal(other.body.results.length, 0);
      await settings(h(), { friendshipACL: 'public' });
      const [f, g] = await seedUsers(h(), 2);
      await befriend(h(), f, g);
      const anyone = await h().client.get('/1.1/classes/_Followee', { where: { user: f.pointer } }, { session: c.sessionToken });
      assert.equal(anyone.body.results.length, 1);
    } finally {
      await settings(h(), { friendshipACL: 'shared' });
    }
  });

  test('clients cannot forge friendship rows through the class API; the master key can', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const forged = { user: a.pointer, followee: b.pointer, friendStatus: true };
    assertError(await h().client.post('/1.1/classes/_Followee', forged, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.post('/1.1/classes/_Follower', { user: a.pointer, follower: b.pointer }, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.post('/1.1/classes/_FriendshipRequest', { user: a.pointer, friend: b.pointer, status: 'accepted' }, { session: a.sessionToken }), 403, 1);
    const batch = await h().client.post('/1.1/batch', { requests: [{ method: 'POST', path: '/1.1/classes/_Followee', body: forged }] }, { session: a.sessionToken });
    assert.equal(batch.body[0].error.code, 1);
    const id = await befriend(h(), a, b);
    const [row] = await h().db.query<{ objectId: string }>(sql`SELECT "objectId" FROM "_Followee" WHERE data->'user'->>'objectId' = ${a.objectId}`);
    assertError(await h().client.put(`/1.1/classes/_Followee/${row.objectId}`, { friendStatus: false }, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.delete(`/1.1/classes/_Followee/${row.objectId}`, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.put(`/1.1/classes/_FriendshipRequest/${id}`, { status: 'pending' }, { session: a.sessionToken }), 403, 1);
    assert.equal((await h().client.put(`/1.1/classes/_Followee/${row.objectId}`, { note: 'by operator' }, { master: true })).status, 200);
  });

  test('follow-model endpoints answer with a clear model error', async () => {
    const [a, b] = await seedUsers(h(), 2);
    for (const res of [
      await h().client.post(`/1.1/users/self/friendship/${b.objectId}`, {}, { session: a.sessionToken }),
      await h().client.get(`/1.1/users/${a.objectId}/followers`, {}, { session: a.sessionToken }),
      await h().client.post('/friend/v2/follow', { objectId: b.objectId }, { session: a.sessionToken }),
      await h().client.get('/friend/v2/fans-list', {}, { session: a.sessionToken }),
    ]) {
      assertError(res, 400, 1);
      assert.match(res.body.error, /follow model, but this app uses the mutual friends model/);
    }
  });

  test('concurrent accepts and applies never duplicate rows', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const applies = await Promise.all([apply(h(), a, b), apply(h(), a, b), apply(h(), a, b)]);
    assert.deepEqual(applies.map((r) => r.status).sort(), [201, 400, 400]);
    const id = applies.find((r) => r.status === 201)!.body.objectId;
    const accepts = await Promise.all([1, 2, 3].map(() => h().client.put(`/1.1/users/friendshipRequests/${id}/accept`, {}, { session: b.sessionToken })));
    assert.deepEqual(accepts.map((r) => r.status).sort(), [200, 400, 400]);
    assert.equal((await followeeRows(h(), a.objectId)).length, 1);
    assert.equal((await followeeRows(h(), b.objectId)).length, 1);
    const [{ n }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM "_FriendshipRequest" WHERE data->'user'->>'objectId' = ${a.objectId}`);
    assert.equal(n, 1);
  });
});
