// GET /1.1/users/strictlyQuery (LCUser.strictlyFind of the Java/ObjC/C# SDKs) on both engines:
// a user search for logged-in clients that works while `_User` find is off, never matches, sorts
// on or returns protected fields (hidden ones, email, phone) except with the master key, refuses
// skip / include / count and inner queries, needs a condition, and respects each user row's ACL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { newPhone } from './harness/sms-capture.ts';
import { assertError, signUp, type SignedUpUser } from './harness/user-helpers.ts';

const PATH = '/1.1/users/strictlyQuery';

forEachEngine('users strictlyQuery', (h) => {
  // One tag per run keeps the searches of this suite to its own users.
  const tag = `t${randomBytes(4).toString('hex')}`;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let carol: SignedUpUser;
  before(async () => {
    alice = await signUp(h(), { nickname: `${tag}-alice`, tag, rank: 1, email: `${tag}a@example.test`, mobilePhoneNumber: newPhone() });
    bob = await signUp(h(), { nickname: `${tag}-bob`, tag, rank: 2, email: `${tag}b@example.test` });
    carol = await signUp(h(), { nickname: `${tag}-carol`, tag, rank: 3 });
    // Carol's row is readable by herself only.
    const res = await h().client.put(`/1.1/users/${carol.objectId}`, { ACL: { [carol.objectId]: { read: true, write: true } } }, { session: carol.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  const search = (session: string | undefined, query: Record<string, unknown>, master = false) =>
    h().client.get(PATH, query, { session, master });

  test('a logged-in user finds users by a public field while _User find is off; no protected field comes back', async () => {
    assertError(await h().client.get('/1.1/users', { where: { tag } }, { session: bob.sessionToken }), 403, 1);
    const res = await search(bob.sessionToken, { where: { nickname: `${tag}-alice` } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.results.length, 1);
    const [u] = res.body.results;
    assert.equal(u.objectId, alice.objectId);
    assert.equal(u.nickname, `${tag}-alice`);
    assert.equal(u.username, alice.username);
    for (const f of ['email', 'mobilePhoneNumber', 'authData', 'sessionToken', 'password', 'salt']) assert.ok(!(f in u), `${f} is not returned`);
  });

  test('an anonymous user may search too; where, order, limit and keys work', async () => {
    const anon = await h().client.post('/1.1/users', { authData: { anonymous: { id: randomBytes(16).toString('hex') } } });
    assert.equal(anon.status, 201, JSON.stringify(anon.body));
    const res = await search(anon.body.sessionToken, { where: { tag, rank: { $gte: 1 } }, order: '-rank', limit: 1, keys: 'nickname,email' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // Carol (rank 3) is not readable, so the top rank visible is Bob's.
    assert.deepEqual(res.body.results.map((u: Record<string, unknown>) => u.nickname), [`${tag}-bob`]);
    assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['createdAt', 'nickname', 'objectId', 'updatedAt']);
    const prefix = await search(anon.body.sessionToken, { where: { nickname: { $regex: `^${tag}-` } }, order: 'rank' });
    assert.deepEqual(prefix.body.results.map((u: Record<string, unknown>) => u.objectId), [alice.objectId, bob.objectId]);
  });

  test("each row's ACL applies: a private user is found only by itself (and the master key)", async () => {
    const where = { nickname: `${tag}-carol` };
    assert.equal((await search(alice.sessionToken, { where })).body.results.length, 0);
    const self = await search(carol.sessionToken, { where });
    assert.deepEqual(self.body.results.map((u: Record<string, unknown>) => u.objectId), [carol.objectId]);
    assert.equal((await search(undefined, { where }, true)).body.results.length, 1);
  });

  test('without a session 206 (an unknown token too); the master key alone may search', async () => {
    const where = { tag };
    const res = await search(undefined, { where });
    assertError(res, 403, 206);
    assert.match(res.body.error, /X-LC-Session/);
    assertError(await search('nosuchtoken00000000000000', { where }), 403, 206);
    const master = await search(undefined, { where, order: 'rank' }, true);
    assert.equal(master.status, 200);
    assert.deepEqual(master.body.results.map((u: Record<string, unknown>) => u.objectId), [alice.objectId, bob.objectId, carol.objectId]);
    assert.equal(master.body.results[0].email, `${tag}a@example.test`, 'the master key sees email');
    assert.ok(!('sessionToken' in master.body.results[0]));
  });

  test('protected fields cannot be queried or sorted on (102), also inside $or/$and', async () => {
    const s = bob.sessionToken;
    for (const where of [
      { email: `${tag}a@example.test` },
      { email: { $regex: '^t' } },
      { mobilePhoneNumber: { $exists: true }, tag },
      { sessionToken: { $exists: true } },
      { authData: { $exists: true } },
      { password: { $regex: '^a' } },
      { $or: [{ tag }, { email: { $regex: '^t' } }] },
      { $and: [{ tag }, { 'authData.anonymous.id': { $exists: true } }] },
    ]) {
      assertError(await search(s, { where }), 400, 102);
    }
    assertError(await search(s, { where: { tag }, order: 'email' }), 400, 102);
    assertError(await search(s, { where: { tag }, order: 'rank,-sessionToken' }), 400, 102);
    // The master key may.
    const m = await search(undefined, { where: { email: `${tag}a@example.test` } }, true);
    assert.deepEqual(m.body.results.map((u: Record<string, unknown>) => u.objectId), [alice.objectId]);
  });

  test('skip, include and count are refused; inner queries are refused; a condition is required', async () => {
    const s = bob.sessionToken;
    assertError(await search(s, { where: { tag }, skip: 100 }), 400, 102);
    assertError(await search(s, { where: { tag }, include: 'friend' }), 400, 102);
    assertError(await search(s, { where: { tag }, count: 1 }), 400, 102);
    assert.equal((await search(s, { where: { tag }, skip: 0 })).status, 200, 'skip=0 is no skip');
    for (const where of [
      { objectId: { $inQuery: { where: { tag }, className: '_User' } } },
      { objectId: { $select: { query: { className: '_User', where: { tag } }, key: 'objectId' } } },
      { $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: 'abc' }, key: 'users' } },
    ]) {
      assertError(await search(s, { where }), 400, 102);
    }
    for (const q of [{}, { where: {} }, { where: '{}' }]) assertError(await search(s, q), 400, 102);
    assertError(await search(s, { where: '{not json' }), 400, 107);
  });

  test('GET /1.1/users/strictlyQuery is not read as a user id', async () => {
    const res = await search(bob.sessionToken, { where: { objectId: alice.objectId } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.results.map((u: Record<string, unknown>) => u.objectId), [alice.objectId]);
  });
});
