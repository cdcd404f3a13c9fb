// Contact data and client-invisible fields (issue 12 item 5) on both engines: `email` and
// `mobilePhoneNumber` of `_User` reach only the user itself and the master key, and an operator's
// per-class invisible fields (app setting clientInvisibleFields) reach only the master key, on
// every read path (get, find, include, batch, friends lists, strictlyQuery; scan and export are
// master-only and see everything). Non-master callers may not name them in where or order.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { befriend, enableFriends } from './harness/presence-helpers.ts';
import { newPhone } from './harness/sms-capture.ts';
import { assertError, signUp, type SignedUpUser } from './harness/user-helpers.ts';

const CONTACT = ['email', 'mobilePhoneNumber'];

forEachEngine('client-invisible fields', (h) => {
  const tag = `t${randomBytes(4).toString('hex')}`;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let postId: string;
  const ptr = (u: SignedUpUser) => ({ __type: 'Pointer', className: '_User', objectId: u.objectId });

  before(async () => {
    alice = await signUp(h(), { tag, nickname: 'alice', email: `${tag}a@example.test`, mobilePhoneNumber: newPhone() });
    bob = await signUp(h(), { tag, nickname: 'bob', email: `${tag}b@example.test`, mobilePhoneNumber: newPhone() });
    const post = await h().client.post('/1.1/classes/Post', { tag, title: 'hello', secret: 's3cret', author: ptr(alice), readers: [ptr(alice), ptr(bob)] });
    assert.equal(post.status, 201, JSON.stringify(post.body));
    postId = post.body.objectId;
    // _User find is closed by default; open it so that finds over users can be tested.
    const perm = await h().client.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }, { master: true });
    assert.equal(perm.status, 200, JSON.stringify(perm.body));
  });

  const setInvisible = async (value: unknown) => {
    const res = await h().client.put('/1.1/larder/settings', { clientInvisibleFields: value }, { master: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.clientInvisibleFields;
  };
  const noContact = (u: Record<string, unknown>, what: string) => {
    for (const f of CONTACT) assert.ok(!(f in u), `${what}: ${f} is not shown`);
  };

  test('the default setting hides users\' contact data', async () => {
    const res = await h().client.get('/1.1/larder/settings', undefined, { master: true });
    assert.deepEqual(res.body.clientInvisibleFields, { _User: CONTACT });
  });

  test('get by id: another user gets no contact data; the user itself and the master key do', async () => {
    for (const path of [`/1.1/users/${alice.objectId}`, `/1.1/classes/_User/${alice.objectId}`]) {
      const other = await h().client.get(path, undefined, { session: bob.sessionToken });
      assert.equal(other.status, 200, JSON.stringify(other.body));
      assert.equal(other.body.nickname, 'alice');
      noContact(other.body, `${path} by bob`);
      const anon = await h().client.get(path);
      noContact(anon.body, `${path} without a session`);
      const self = await h().client.get(path, undefined, { session: alice.sessionToken });
      assert.equal(self.body.email, `${tag}a@example.test`, `${path} by alice`);
      assert.equal(typeof self.body.mobilePhoneNumber, 'string');
      const master = await h().client.get(path, undefined, { master: true });
      assert.equal(master.body.email, `${tag}a@example.test`, `${path} by the master key`);
    }
  });

  test('find, count and keys: only the caller\'s own row keeps its contact data', async () => {
    const res = await h().client.get('/1.1/classes/_User', { where: { tag }, order: 'nickname', keys: 'nickname,email,mobilePhoneNumber', count: 1 }, { session: bob.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.count, 2);
    const [a, b] = res.body.results;
    noContact(a, 'alice found by bob');
    assert.equal(b.email, `${tag}b@example.test`, 'bob sees his own email');
    const master = await h().client.get('/1.1/classes/_User', { where: { tag }, order: 'nickname' }, { master: true });
    assert.equal(master.body.results[0].email, `${tag}a@example.test`);
  });

  test('include of a _User pointer (also in arrays) and batch GETs hide them too', async () => {
    const res = await h().client.get(`/1.1/classes/Post/${postId}`, { include: 'author,readers' }, { session: bob.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.author.nickname, 'alice');
    noContact(res.body.author, 'included author');
    noContact(res.body.readers[0], 'included alice in an array');
    assert.equal(res.body.readers[1].email, `${tag}b@example.test`, 'bob sees himself when included');
    const found = await h().client.get('/1.1/classes/Post', { where: { tag }, include: 'author' });
    noContact(found.body.results[0].author, 'included in a find');
    const batch = await h().client.post('/1.1/batch', {
      requests: [
        { method: 'GET', path: `/1.1/users/${alice.objectId}` },
        { method: 'GET', path: '/1.1/classes/_User', params: { where: { tag } } },
        { method: 'GET', path: `/1.1/classes/Post/${postId}`, params: { include: 'author' } },
      ],
    }, { session: bob.sessionToken });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    noContact(batch.body[0].success, 'batch get');
    for (const u of batch.body[1].success.results) if (u.objectId !== bob.objectId) noContact(u, 'batch find');
    noContact(batch.body[2].success.author, 'batch include');
    const master = await h().client.get(`/1.1/classes/Post/${postId}`, { include: 'author' }, { master: true });
    assert.equal(master.body.author.email, `${tag}a@example.test`);
  });

  test('contact fields cannot be queried or sorted on without the master key (102), however nested', async () => {
    const s = bob.sessionToken;
    for (const where of [
      { email: `${tag}a@example.test` },
      { email: { $regex: `^${tag}` } },
      { $or: [{ nickname: 'x' }, { mobilePhoneNumber: { $exists: true } }] },
      { $and: [{ tag }, { 'email.x': 1 }] },
    ]) {
      assertError(await h().client.get('/1.1/classes/_User', { where }, { session: s }), 400, 102);
    }
    assertError(await h().client.get('/1.1/classes/_User', { where: { tag }, order: '-email' }, { session: s }), 400, 102);
    assertError(await h().client.get('/1.1/classes/_User', { where: { tag }, order: 'nickname,mobilePhoneNumber' }), 400, 102);
    assertError(await h().client.get('/1.1/classes/Post', { where: { author: { $inQuery: { className: '_User', where: { email: { $regex: '^t' } } } } } }, { session: s }), 400, 102);
    assertError(await h().client.get('/1.1/classes/Post', { where: { title: { $select: { query: { className: '_User', where: { tag } }, key: 'email' } } } }, { session: s }), 400, 102);
    // Through a conditional write: the where of an update is checked like a find.
    assertError(await h().client.put(`/1.1/classes/Post/${postId}`, { title: 'x' }, { query: { where: JSON.stringify({ author: { $inQuery: { className: '_User', where: { email: `${tag}a@example.test` } } } }) } }), 400, 102);
    const master = await h().client.get('/1.1/classes/_User', { where: { email: `${tag}a@example.test` } }, { master: true });
    assert.deepEqual(master.body.results.map((u: { objectId: string }) => u.objectId), [alice.objectId]);
  });

  test('operator invisible fields: hidden from clients on every path, refused in where/order, seen by the master key', async () => {
    const set = await setInvisible({ Post: ['secret'] });
    assert.deepEqual(set, { _User: CONTACT, Post: ['secret'] }, 'other classes keep their lists');
    try {
      const get = await h().client.get(`/1.1/classes/Post/${postId}`, undefined, { session: alice.sessionToken });
      assert.equal(get.body.title, 'hello');
      assert.ok(!('secret' in get.body), 'get');
      const find = await h().client.get('/1.1/classes/Post', { where: { tag } });
      assert.ok(!('secret' in find.body.results[0]), 'find');
      const batch = await h().client.post('/1.1/batch', { requests: [{ method: 'GET', path: `/1.1/classes/Post/${postId}` }] });
      assert.ok(!('secret' in batch.body[0].success), 'batch');
      const comment = await h().client.post('/1.1/classes/Comment', { tag, post: { __type: 'Pointer', className: 'Post', objectId: postId } });
      const inc = await h().client.get('/1.1/classes/Comment', { where: { tag }, include: 'post' });
      assert.equal(inc.body.results[0].objectId, comment.body.objectId);
      assert.ok(!('secret' in inc.body.results[0].post), 'include');
      assertError(await h().client.get('/1.1/classes/Post', { where: { $or: [{ tag: 'x' }, { secret: { $regex: '^s' } }] } }), 400, 102);
      assertError(await h().client.get('/1.1/classes/Post', { where: { 'secret.a': 1 } }), 400, 102);
      assertError(await h().client.get('/1.1/classes/Post', { order: '-secret' }), 400, 102);
      assertError(await h().client.get('/1.1/classes/Comment', { where: { post: { $inQuery: { className: 'Post', where: { secret: 's3cret' } } } } }), 400, 102);
      const master = await h().client.get('/1.1/classes/Post', { where: { secret: 's3cret' } }, { master: true });
      assert.equal(master.body.results[0].secret, 's3cret');
      const scan = await h().client.get('/1.1/scan/classes/Post', { where: JSON.stringify({ tag }) }, { master: true });
      assert.equal(scan.status, 200, JSON.stringify(scan.body));
      assert.equal(scan.body.results[0].secret, 's3cret', 'scan (master key) sees every field');
      // An invisible field on _User is kept from other users, also in strictlyQuery.
      await setInvisible({ _User: ['email', 'mobilePhoneNumber', 'nickname'] });
      const other = await h().client.get(`/1.1/users/${alice.objectId}`, undefined, { session: bob.sessionToken });
      assert.ok(!('nickname' in other.body));
      const self = await h().client.get(`/1.1/users/${alice.objectId}`, undefined, { session: alice.sessionToken });
      assert.equal(self.body.nickname, 'alice');
      const strict = await h().client.get('/1.1/users/strictlyQuery', { where: { tag } }, { session: bob.sessionToken });
      assert.equal(strict.status, 200, JSON.stringify(strict.body));
      for (const u of strict.body.results) assert.ok(!('nickname' in u) && !('email' in u), 'strictlyQuery');
      assertError(await h().client.get('/1.1/users/strictlyQuery', { where: { nickname: 'alice' } }, { session: bob.sessionToken }), 400, 102);
    } finally {
      await setInvisible({ Post: null, _User: null });
    }
    const back = await h().client.get(`/1.1/classes/Post/${postId}`);
    assert.equal(back.body.secret, 's3cret', 'visible again once the setting is cleared');
  });

  test('an operator may make contact data visible again', async () => {
    await setInvisible({ _User: [] });
    try {
      const other = await h().client.get(`/1.1/users/${alice.objectId}`, undefined, { session: bob.sessionToken });
      assert.equal(other.body.email, `${tag}a@example.test`);
    } finally {
      assert.deepEqual(await setInvisible({ _User: null }), { _User: CONTACT });
    }
  });

  test('bad settings are refused with 400 and change nothing', async () => {
    for (const bad of [[], 'x', { Post: 'secret' }, { Post: [1] }, { Post: ['a-b'] }, { Post: ['objectId'] }, { '1x': ['a'] }, { __proto__x: ['a'] }]) {
      const res = await h().client.put('/1.1/larder/settings', { clientInvisibleFields: bad }, { master: true });
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    const res = await h().client.get('/1.1/larder/settings', undefined, { master: true });
    assert.deepEqual(res.body.clientInvisibleFields, { _User: CONTACT });
  });

  test('friends lists hide invisible fields of the listed users', async () => {
    await enableFriends(h());
    await befriend(h(), alice.objectId, bob.objectId);
    await setInvisible({ _User: ['email', 'mobilePhoneNumber', 'nickname'] });
    try {
      const res = await h().client.get('/friend/v2/friends-list', undefined, { session: alice.sessionToken });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const entry = res.body.results.find((r: { tdsUser: { objectId: string } }) => r.tdsUser.objectId === bob.objectId);
      assert.ok(entry, JSON.stringify(res.body));
      assert.equal(entry.tdsUser.username, bob.username);
      for (const f of ['nickname', ...CONTACT]) assert.ok(!(f in entry.tdsUser), `friends list: ${f}`);
    } finally {
      await setInvisible({ _User: null });
    }
  });
});
