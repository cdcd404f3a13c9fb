import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { ident, sql } from '../../src/sql/fragment.ts';
import { friendIdsOf } from '../../src/modules/friends/friendship/friend-ids.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { seedUser, seedUsers, type SeededUser } from './harness/seed-users.ts';
import { assertError } from './harness/user-helpers.ts';

async function settings(h: Harness, change: Record<string, unknown>): Promise<void> {
  const res = await h.client.put('/1.1/larder/settings', change, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

function follow(h: Harness, a: SeededUser, b: SeededUser, attrs?: Record<string, unknown>) {
  return h.client.post(`/1.1/users/self/friendship/${b.objectId}`, attrs, { session: a.sessionToken });
}

async function rows(h: Harness, cls: '_Followee' | '_Follower', owner: string): Promise<Record<string, any>[]> {
  const r = await h.db.query<{ data: Record<string, any> }>(sql`SELECT data FROM ${ident(cls)} WHERE data->'user'->>'objectId' = ${owner} ORDER BY "createdAt"`);
  return r.map((x) => x.data);
}

forEachEngine('friendships: follow model', (h) => {
  before(async () => {
    await settings(h(), { richPresenceSync: true, friendModel: 'follow' });
  });

  test('follow writes one _Followee and one _Follower with the attrs; following again is idempotent', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const res = await follow(h(), a, b, { score: 100 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.followee.objectId, b.objectId);
    assert.equal(res.body.score, 100);
    const fe = await rows(h(), '_Followee', a.objectId);
    const fr = await rows(h(), '_Follower', b.objectId);
    assert.equal(fe.length, 1);
    assert.equal(fe[0].friendStatus, false);
    assert.equal(fe[0].score, 100);
    assert.equal(fr.length, 1);
    assert.equal(fr[0].follower.objectId, a.objectId);
    assert.equal(fr[0].score, 100);
    assert.equal((await follow(h(), a, b, { score: 7 })).status, 200);
    assert.equal((await rows(h(), '_Followee', a.objectId)).length, 1);
    assert.equal((await rows(h(), '_Followee', a.objectId))[0].score, 7);
    assert.deepEqual(await friendIdsOf(h().app, a.objectId), [], 'a one-way follow is no friendship');
  });

  test('following back makes the follow mutual; mutualFollowees and friendIdsOf see it', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    await follow(h(), a, b);
    await follow(h(), a, c);
    await follow(h(), b, a);
    assert.equal((await rows(h(), '_Followee', a.objectId))[0].friendStatus, true);
    assert.equal((await rows(h(), '_Followee', b.objectId))[0].friendStatus, true);
    assert.equal((await rows(h(), '_Followee', a.objectId))[1].friendStatus, false);
    const m = await h().client.get(`/1.1/users/${a.objectId}/mutualFollowees`, {}, { session: a.sessionToken });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.deepEqual(m.body.results.map((r: any) => r.followee.objectId), [b.objectId]);
    assert.equal(m.body.results[0].followee.username, b.username, 'followee included');
    assertError(await h().client.get(`/1.1/users/${a.objectId}/mutualFollowees`, { where: { followee: b.pointer } }, { session: a.sessionToken }), 400, 102);
    assert.deepEqual(await friendIdsOf(h().app, a.objectId), [b.objectId]);
    assert.deepEqual(await friendIdsOf(h().app, b.objectId), [a.objectId]);
    assert.deepEqual(await friendIdsOf(h().app, c.objectId), []);
  });

  test('followers, followees, followersAndFollowees: where, order, skip, limit, count, include', async () => {
    const [a, b, c, d] = await seedUsers(h(), 4);
    await follow(h(), b, a, { score: 1 });
    await follow(h(), c, a, { score: 2 });
    await follow(h(), d, a, { score: 3 });
    await follow(h(), a, d);
    const f = await h().client.get(`/1.1/users/${a.objectId}/followers`, { where: { score: { $gte: 2 } }, order: '-score', include: 'follower', count: 1 }, { session: a.sessionToken });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.equal(f.body.count, 2);
    assert.deepEqual(f.body.results.map((r: any) => r.follower.objectId), [d.objectId, c.objectId]);
    assert.equal(f.body.results[0].follower.username, d.username);
    const page = await h().client.get('/1.1/users/self/followers', { order: 'score', skip: 1, limit: 1 }, { session: a.sessionToken });
    assert.deepEqual(page.body.results.map((r: any) => r.follower.objectId), [c.objectId]);
    assert.equal(page.body.results[0].follower.username, undefined, 'pointer without include');
    const fe = await h().client.get(`/1.1/users/${a.objectId}/followees`, { include: 'followee' }, { session: a.sessionToken });
    assert.deepEqual(fe.body.results.map((r: any) => r.followee.username), [d.username]);
    const both = await h().client.get(`/1.1/users/${a.objectId}/followersAndFollowees`, { count: 1 }, { session: a.sessionToken });
    assert.equal(both.status, 200);
    assert.equal(both.body.followers.length, 3);
    assert.equal(both.body.followees.length, 1);
    assert.equal(both.body.followers_count, 3);
    assert.equal(both.body.followees_count, 1);
    const noCount = await h().client.get(`/1.1/users/${a.objectId}/followersAndFollowees`, {}, { session: a.sessionToken });
    assert.equal(noCount.body.followers_count, undefined);
  });

  test('another user reads a list only as far as the row ACL allows (shared: rows naming it)', async () => {
    const [a, b, c] = await seedUsers(h(), 3);
    await follow(h(), b, a);
    await follow(h(), c, a);
    const asB = await h().client.get(`/1.1/users/${a.objectId}/followers`, {}, { session: b.sessionToken });
    assert.deepEqual(asB.body.results.map((r: any) => r.follower.objectId), [b.objectId]);
    const stranger = await seedUser(h());
    assert.deepEqual((await h().client.get(`/1.1/users/${a.objectId}/followers`, {}, { session: stranger.sessionToken })).body.results, []);
    assert.equal((await h().client.get(`/1.1/users/${a.objectId}/followers`, {}, { master: true })).body.results.length, 2);
  });

  test('update attrs changes both copies; unfollow removes both rows; 221 when absent', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await follow(h(), a, b, { group: 'x' });
    await follow(h(), b, a);
    const up = await h().client.put(`/1.1/users/${a.objectId}/friendship/${b.objectId}`, { group: 'y' }, { session: a.sessionToken });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.group, 'y');
    const up2 = await h().client.put(`/1.1/users/self/friendship/${b.objectId}`, { friendship: { remark: 'r' } }, { session: a.sessionToken });
    assert.equal(up2.body.remark, 'r');
    assert.equal((await rows(h(), '_Follower', b.objectId))[0].group, 'y');
    assert.equal((await rows(h(), '_Follower', b.objectId))[0].remark, 'r');
    assertError(await h().client.put(`/1.1/users/${b.objectId}/friendship/${a.objectId}`, { group: 'z' }, { session: a.sessionToken }), 403, 1);
    const del = await h().client.delete(`/1.1/users/self/friendship/${b.objectId}`, { session: a.sessionToken });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(await rows(h(), '_Followee', a.objectId), []);
    assert.deepEqual(await rows(h(), '_Follower', b.objectId), []);
    assert.equal((await rows(h(), '_Followee', b.objectId))[0].friendStatus, false, 'no longer mutual');
    assertError(await h().client.delete(`/1.1/users/self/friendship/${b.objectId}`, { session: a.sessionToken }), 404, 221);
    assertError(await h().client.put(`/1.1/users/self/friendship/${b.objectId}`, { group: 'z' }, { session: a.sessionToken }), 404, 221);
  });

  test('bad follows: self, unknown user, someone else, no session, server fields as attrs', async () => {
    const [a, b] = await seedUsers(h(), 2);
    assertError(await follow(h(), a, a), 400, 1);
    assertError(await h().client.post('/1.1/users/self/friendship/aaaaaaaaaaaaaaaaaaaaaaaa', {}, { session: a.sessionToken }), 400, 211);
    assertError(await h().client.post(`/1.1/users/${b.objectId}/friendship/${a.objectId}`, {}, { session: a.sessionToken }), 403, 1);
    assertError(await h().client.post(`/1.1/users/self/friendship/${b.objectId}`, {}), 403, 206);
    assertError(await follow(h(), a, b, { followee: a.pointer }), 400, 117);
    assertError(await follow(h(), a, b, { ACL: {} }), 400, 105);
    assertError(await follow(h(), a, b, { n: { __op: 'Increment', amount: 1 } }), 400, 107);
    assert.deepEqual(await rows(h(), '_Followee', a.objectId), []);
    const m = await h().client.post(`/1.1/users/${b.objectId}/friendship/${a.objectId}`, {}, { master: true });
    assert.equal(m.status, 200, 'the master key acts for any user');
  });

  test('TDS endpoints: follow, unfollow, follow-list, fans-list, mutual-list with paging', async () => {
    const [a, b, c, d] = await seedUsers(h(), 4);
    for (const t of [b, c, d]) {
      const r = await h().client.post('/friend/v2/follow', { objectId: t.objectId }, { session: a.sessionToken });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.syncCode, 0);
      assert.equal(typeof r.body.message, 'string');
    }
    await h().client.post('/friend/v2/follow', { objectId: a.objectId }, { session: c.sessionToken });
    const p1 = await h().client.get('/friend/v2/follow-list', { limit: 2 }, { session: a.sessionToken });
    assert.equal(p1.status, 200, JSON.stringify(p1.body));
    assert.deepEqual(p1.body.results.map((r: any) => r.tdsUser.objectId), [d.objectId, c.objectId], 'newest first');
    assert.equal(p1.body.isLastPage, false);
    assert.equal(p1.body.nextSkip, '2');
    const p2 = await h().client.get('/friend/v2/follow-list', { limit: 2, skip: p1.body.nextSkip }, { session: a.sessionToken });
    assert.deepEqual(p2.body.results.map((r: any) => r.tdsUser.objectId), [b.objectId]);
    assert.equal(p2.body.isLastPage, true);
    assert.equal(p2.body.nextSkip, undefined);
    const alias = await h().client.get('/friend/v2/follow-list', { size: 1, cursor: '1' }, { session: a.sessionToken });
    assert.deepEqual(alias.body.results.map((r: any) => r.tdsUser.objectId), [c.objectId]);
    const fans = await h().client.get('/friend/v2/fans-list', {}, { session: a.sessionToken });
    assert.deepEqual(fans.body.results.map((r: any) => r.tdsUser.objectId), [c.objectId]);
    const mutual = await h().client.get('/friend/v2/mutual-list', {}, { session: a.sessionToken });
    assert.deepEqual(mutual.body.results.map((r: any) => r.tdsUser.objectId), [c.objectId]);
    assert.deepEqual(Object.keys(mutual.body.results[0]).sort(), ['online', 'richPresence', 'tdsUser']);
    const sorted = await h().client.get('/friend/v2/follow-list', { sort_field: 'online' }, { session: a.sessionToken });
    assert.equal(sorted.body.results.length, 3);
    const byField = await h().client.get('/friend/v2/follow-list', { sort_field: 'rich_presence_score' }, { session: a.sessionToken });
    assert.equal(byField.body.results.length, 3);
    assertError(await h().client.get('/friend/v2/follow-list', { sort_field: 'name' }, { session: a.sessionToken }), 400, 102);
    assertError(await h().client.get('/friend/v2/follow-list', { limit: 501 }, { session: a.sessionToken }), 400, 102);
    assertError(await h().client.get('/friend/v2/follow-list', { skip: -1 }, { session: a.sessionToken }), 400, 102);
    const un = await h().client.post('/friend/v2/unfollow', { objectId: b.objectId }, { session: a.sessionToken });
    assert.equal(un.status, 200);
    assertError(await h().client.post('/friend/v2/unfollow', { objectId: b.objectId }, { session: a.sessionToken }), 404, 221);
    assertError(await h().client.post('/friend/v2/follow', { id: b.objectId }, { session: a.sessionToken }), 400, 104);
    assertError(await h().client.post('/friend/v2/follow', { objectId: b.objectId }, { master: true }), 403, 206);
  });

  test('blocking ends follows both ways and stops new ones; block-list; unblock', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await follow(h(), a, b);
    await follow(h(), b, a);
    const blk = await h().client.post('/friend/v2/block', { objectId: b.objectId }, { session: a.sessionToken });
    assert.equal(blk.status, 200, JSON.stringify(blk.body));
    assert.equal(blk.body.syncCode, 0);
    assert.deepEqual(await rows(h(), '_Followee', a.objectId), []);
    assert.deepEqual(await rows(h(), '_Followee', b.objectId), []);
    assert.deepEqual(await rows(h(), '_Follower', a.objectId), []);
    assertError(await follow(h(), b, a), 403, 1);
    assertError(await follow(h(), a, b), 403, 1);
    const list = await h().client.get('/friend/v2/block-list', {}, { session: a.sessionToken });
    assert.deepEqual(list.body.results.map((r: any) => r.tdsUser.objectId), [b.objectId]);
    assert.equal(list.body.results[0].online, false);
    assert.equal((await h().client.post('/friend/v2/unblock', { objectId: b.objectId }, { session: a.sessionToken })).status, 200);
    assertError(await h().client.post('/friend/v2/unblock', { objectId: b.objectId }, { session: a.sessionToken }), 404, 221);
    assert.equal((await follow(h(), b, a)).status, 200);
  });

  test('limit: 5,000 followees', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await h().db.query(sql`INSERT INTO "_Followee" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      SELECT 'fe' || g || ${a.objectId}, now(), now(), '{}'::jsonb, ARRAY[${a.objectId}]::text[], ARRAY[${a.objectId}]::text[],
        jsonb_build_object('user', jsonb_build_object('__type','Pointer','className','_User','objectId',${a.objectId}::text),
          'followee', jsonb_build_object('__type','Pointer','className','_User','objectId','seed' || g), 'friendStatus', false)
      FROM generate_series(1, 5000) g`);
    const res = await follow(h(), a, b);
    assertError(res, 400, 154);
    assert.match(res.body.error, /5000 followees/);
    assert.deepEqual(await rows(h(), '_Follower', b.objectId), []);
    // Following someone already followed is not a new followee and still works at the limit.
    await h().db.query(sql`DELETE FROM "_Followee" WHERE "objectId" = ${'fe1' + a.objectId}`);
    assert.equal((await follow(h(), a, b)).status, 200);
    assert.equal((await follow(h(), a, b, { again: true })).status, 200);
  });

  test('autoFollowBack: one follow writes both directions', async () => {
    await settings(h(), { autoFollowBack: true });
    try {
      const [a, b] = await seedUsers(h(), 2);
      assert.equal((await follow(h(), a, b, { tag: 't' })).status, 200);
      const ab = await rows(h(), '_Followee', a.objectId);
      const ba = await rows(h(), '_Followee', b.objectId);
      assert.equal(ab.length, 1);
      assert.equal(ba.length, 1);
      assert.equal(ab[0].friendStatus, true);
      assert.equal(ba[0].friendStatus, true);
      assert.equal(ba[0].tag, 't');
      assert.equal((await rows(h(), '_Follower', a.objectId)).length, 1);
      assert.equal((await rows(h(), '_Follower', b.objectId)).length, 1);
    } finally {
      await settings(h(), { autoFollowBack: false });
    }
  });

  test('concurrent follows of one pair write one row each', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => follow(h(), a, b)));
    assert.deepEqual(all.map((r) => r.status), [200, 200, 200, 200, 200]);
    const both = await Promise.all([follow(h(), b, a), follow(h(), a, b)]);
    assert.deepEqual(both.map((r) => r.status), [200, 200]);
    assert.equal((await rows(h(), '_Followee', a.objectId)).length, 1);
    assert.equal((await rows(h(), '_Follower', b.objectId)).length, 1);
    assert.equal((await rows(h(), '_Followee', a.objectId))[0].friendStatus, true);
    assert.equal((await rows(h(), '_Followee', b.objectId))[0].friendStatus, true);
  });

  test('mutual-model endpoints answer with a clear model error', async () => {
    const [a, b] = await seedUsers(h(), 2);
    for (const res of [
      await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: b.pointer }, { session: a.sessionToken }),
      await h().client.put('/1.1/users/friendshipRequests/abc/accept', {}, { session: b.sessionToken }),
      await h().client.get('/1.1/users/self/friends', {}, { session: a.sessionToken }),
      await h().client.get('/friend/v2/friends-list', {}, { session: a.sessionToken }),
    ]) {
      assertError(res, 400, 1);
      assert.match(res.body.error, /mutual friends model, but this app uses the follow model/);
    }
  });
});
