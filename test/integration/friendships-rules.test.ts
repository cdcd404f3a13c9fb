import assert from 'node:assert/strict';
import { test } from 'node:test';
import { friendIdsOf } from '../../src/modules/friends/friendship/friend-ids.ts';
import { forEachEngine } from './harness/engines.ts';
import { seedUsers } from './harness/seed-users.ts';
import { assertError } from './harness/user-helpers.ts';

/** The storage SDK's follow API: it answers without the switch and without a chosen model. */
const STORAGE_FOLLOW = ['POST friendship', 'PUT friendship', 'DELETE friendship', 'GET followers', 'GET followees', 'GET followersAndFollowees', 'GET mutualFollowees'];

/** One call of every friends-service endpoint (the storage follow API excluded), as user a about user b. */
function everyEndpoint(a: { objectId: string; sessionToken: string }, b: { objectId: string }) {
  return allEndpoints(a, b).filter((e) => !STORAGE_FOLLOW.includes(e.name));
}

/** One call of every friendship endpoint, as user a about user b. */
function allEndpoints(a: { objectId: string; sessionToken: string }, b: { objectId: string }) {
  const s = { session: a.sessionToken };
  const ptr = (objectId: string) => ({ __type: 'Pointer', className: '_User', objectId });
  return [
    ['POST friendshipRequests', '/1.1/users/friendshipRequests', 'POST', { user: ptr(a.objectId), friend: ptr(b.objectId) }],
    ['PUT accept', '/1.1/users/friendshipRequests/abc/accept', 'PUT', {}],
    ['PUT decline', '/1.1/users/friendshipRequests/abc/decline', 'PUT', {}],
    ['GET friends', '/1.1/users/self/friends', 'GET', undefined],
    ['GET friends-list', '/friend/v2/friends-list', 'GET', undefined],
    ['POST friendship', `/1.1/users/self/friendship/${b.objectId}`, 'POST', {}],
    ['PUT friendship', `/1.1/users/self/friendship/${b.objectId}`, 'PUT', { x: 1 }],
    ['DELETE friendship', `/1.1/users/self/friendship/${b.objectId}`, 'DELETE', undefined],
    ['POST blocklist', `/1.1/users/self/friendBlocklist/${b.objectId}`, 'POST', {}],
    ['DELETE blocklist', `/1.1/users/self/friendBlocklist/${b.objectId}`, 'DELETE', undefined],
    ['GET blocklist', '/1.1/users/self/friendBlocklist', 'GET', undefined],
    ['GET followers', `/1.1/users/${a.objectId}/followers`, 'GET', undefined],
    ['GET followees', `/1.1/users/${a.objectId}/followees`, 'GET', undefined],
    ['GET followersAndFollowees', `/1.1/users/${a.objectId}/followersAndFollowees`, 'GET', undefined],
    ['GET mutualFollowees', `/1.1/users/${a.objectId}/mutualFollowees`, 'GET', undefined],
    ['POST v2 follow', '/friend/v2/follow', 'POST', { objectId: b.objectId }],
    ['POST v2 unfollow', '/friend/v2/unfollow', 'POST', { objectId: b.objectId }],
    ['POST v2 block', '/friend/v2/block', 'POST', { objectId: b.objectId }],
    ['POST v2 unblock', '/friend/v2/unblock', 'POST', { objectId: b.objectId }],
    ['GET follow-list', '/friend/v2/follow-list', 'GET', undefined],
    ['GET fans-list', '/friend/v2/fans-list', 'GET', undefined],
    ['GET mutual-list', '/friend/v2/mutual-list', 'GET', undefined],
    ['GET block-list', '/friend/v2/block-list', 'GET', undefined],
  ].map(([name, url, method, body]) => ({ name: name as string, req: { url: url as string, method: method as 'GET' | 'POST' | 'PUT' | 'DELETE', body, ...s } }));
}

forEachEngine('friendships: service switch and model choice', (h) => {
  test('no friend table yet: friendIdsOf answers [] and creates nothing', async () => {
    const [a] = await seedUsers(h(), 1);
    assert.deepEqual(await friendIdsOf(h().app, a.objectId), []);
    assert.equal(await h().app.classes.find('_Followee'), undefined);
  });

  test('every endpoint refuses while richPresenceSync is off, naming the setting', async () => {
    const [a, b] = await seedUsers(h(), 2);
    for (const { name, req } of everyEndpoint(a, b)) {
      const res = await h().client.request(req);
      assertError(res, 403, 1);
      assert.match(res.body.error, /richPresenceSync/, name);
    }
  });

  test('with the service on but no model chosen, every endpoint says to choose one', async () => {
    const on = await h().client.put('/1.1/larder/settings', { richPresenceSync: true }, { master: true });
    assert.equal(on.status, 200);
    const [a, b] = await seedUsers(h(), 2);
    for (const { name, req } of everyEndpoint(a, b)) {
      const res = await h().client.request(req);
      assertError(res, 400, 1);
      assert.match(res.body.error, /No friend model is chosen.*friendModel.*'mutual' or 'follow'.*permanent/, name);
    }
    assert.equal(await h().app.classes.find('_Followee'), undefined, 'refused calls create no table');
  });

  test('the model, once chosen, cannot change, also when two first choices race', async () => {
    const answers = await Promise.all(
      ['follow', 'mutual', 'follow', 'mutual'].map((friendModel) => h().client.put('/1.1/larder/settings', { friendModel }, { master: true })),
    );
    const chosen = (await h().client.get('/1.1/larder/settings', undefined, { master: true })).body.friendModel;
    assert.ok(chosen === 'follow' || chosen === 'mutual');
    // Every request asking for the stored model succeeded (same value again is harmless); every other one was refused.
    for (const [i, res] of answers.entries()) {
      const asked = i % 2 === 0 ? 'follow' : 'mutual';
      if (asked === chosen) assert.equal(res.status, 200, JSON.stringify(res.body));
      else assertError(res, 400, 1);
    }
    const other = chosen === 'follow' ? 'mutual' : 'follow';
    assertError(await h().client.put('/1.1/larder/settings', { friendModel: other }, { master: true }), 400, 1);
  });
});

forEachEngine('friendships: the storage follow API without the friends service', (h) => {
  test('the storage follow API works with the switch off and no model chosen (AV.User#follow)', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const c = h().client;
    const followed = await c.post(`/1.1/users/self/friendship/${b.objectId}`, {}, { session: a.sessionToken });
    assert.equal(followed.status, 200, JSON.stringify(followed.body));
    const mine = await c.get(`/1.1/users/${a.objectId}/followees`, { include: 'followee' }, { session: a.sessionToken });
    assert.deepEqual(mine.body.results.map((r: { followee: { objectId: string } }) => r.followee.objectId), [b.objectId]);
    const theirs = await c.get(`/1.1/users/${b.objectId}/followers`, undefined, { session: b.sessionToken });
    assert.deepEqual(theirs.body.results.map((r: { follower: { objectId: string } }) => r.follower.objectId), [a.objectId]);
    const both = await c.get(`/1.1/users/${b.objectId}/followersAndFollowees`, { count: 1 }, { session: b.sessionToken });
    assert.equal(both.body.followers_count, 1);
    assert.equal(both.body.followees_count, 0);
    const attrs = await c.put(`/1.1/users/${a.objectId}/friendship/${b.objectId}`, { group: 'close' }, { session: a.sessionToken });
    assert.equal(attrs.status, 200, JSON.stringify(attrs.body));
    const mutual = await c.get(`/1.1/users/${a.objectId}/mutualFollowees`, undefined, { session: a.sessionToken });
    assert.deepEqual(mutual.body.results, []);
    assert.equal((await c.delete(`/1.1/users/self/friendship/${b.objectId}`, { session: a.sessionToken })).status, 200);
    assertError(await c.delete(`/1.1/users/self/friendship/${b.objectId}`, { session: a.sessionToken }), 404, 221);
    // Still a user or the master key, and a user acts only as itself.
    assertError(await c.post(`/1.1/users/${b.objectId}/friendship/${a.objectId}`, {}), 403, 206);
    assertError(await c.post(`/1.1/users/${b.objectId}/friendship/${a.objectId}`, {}, { session: a.sessionToken }), 403, 1);
    // The friends service proper stays off.
    assertError(await c.get('/friend/v2/follow-list', undefined, { session: a.sessionToken }), 403, 1);
    const settings = await c.get('/1.1/larder/settings', undefined, { master: true });
    assert.equal(settings.body.friendModel, '', 'following chose no model');
  });

  test('an app that chose the mutual model refuses follows', async () => {
    assert.equal((await h().client.put('/1.1/larder/settings', { friendModel: 'mutual' }, { master: true })).status, 200);
    const [a, b] = await seedUsers(h(), 2);
    const res = await h().client.post(`/1.1/users/self/friendship/${b.objectId}`, {}, { session: a.sessionToken });
    assertError(res, 400, 1);
    assert.match(res.body.error, /follow model.*mutual friends model/);
    assertError(await h().client.get(`/1.1/users/${a.objectId}/followers`, undefined, { session: a.sessionToken }), 400, 1);
  });
});
