// Security leftovers of issue 3, on both engines:
// (a) `$relatedTo` reveals the members of a relation only to callers who can read its owner;
// (b) an inner query or `$relatedTo` naming an internal table is a clear 103, not an empty match;
// (c) the `where` of a conditional user write (PUT / DELETE /1.1/users/<id>?where=) can neither
//     name hidden fields nor let inner queries see what the caller cannot read: otherwise
//     200-versus-305 would be an oracle on other users' secrets.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { assertError, signUp, type SignedUpUser } from './harness/user-helpers.ts';

const ptr = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
const ids = (res: { body: { results: { objectId: string }[] } }) => res.body.results.map((o) => o.objectId).sort();

forEachEngine('security leftovers', (h) => {
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  before(async () => {
    alice = await signUp(h());
    bob = await signUp(h());
  });

  test('(a) $relatedTo on an owner the caller cannot read matches nothing (find and count)', async () => {
    const c = h().client;
    const photos: string[] = [];
    for (let i = 0; i < 3; i++) photos.push((await c.post('/1.1/classes/LeftPhoto', { i }, { session: alice.sessionToken })).body.objectId);
    const relation = { __op: 'AddRelation', objects: photos.map((id) => ptr('LeftPhoto', id)) };
    const hidden = await c.post('/1.1/classes/LeftAlbum', { photos: relation, ACL: { [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken });
    const shown = await c.post('/1.1/classes/LeftAlbum', { photos: relation, ACL: { '*': { read: true } } }, { session: alice.sessionToken });
    assert.equal(hidden.status, 201, JSON.stringify(hidden.body));
    const where = (albumId: string) => ({ $relatedTo: { object: ptr('LeftAlbum', albumId), key: 'photos' } });

    // The photos themselves are public; only the album's membership is private.
    assert.equal((await c.get('/1.1/classes/LeftPhoto', { where: { objectId: { $in: photos } } }, { session: bob.sessionToken })).body.results.length, 3);
    const probe = await c.get('/1.1/classes/LeftPhoto', { where: where(hidden.body.objectId), count: 1 }, { session: bob.sessionToken });
    assert.equal(probe.status, 200, JSON.stringify(probe.body));
    assert.deepEqual([probe.body.results.length, probe.body.count], [0, 0]);
    assertEmptyAnon(await c.get('/1.1/classes/LeftPhoto', { where: where(hidden.body.objectId) }));
    // The owner, a readable album, and the master key see the members.
    assert.deepEqual(ids(await c.get('/1.1/classes/LeftPhoto', { where: where(hidden.body.objectId) }, { session: alice.sessionToken })), [...photos].sort());
    assert.deepEqual(ids(await c.get('/1.1/classes/LeftPhoto', { where: where(shown.body.objectId) }, { session: bob.sessionToken })), [...photos].sort());
    assert.deepEqual(ids(await c.get('/1.1/classes/LeftPhoto', { where: where(hidden.body.objectId) }, { master: true })), [...photos].sort());
    // Nested in $or and in an inner query, the rule holds.
    const nested = await c.get('/1.1/classes/LeftPhoto', { where: { $or: [where(hidden.body.objectId), { i: 99 }] } }, { session: bob.sessionToken });
    assert.equal(nested.body.results.length, 0);
    // An owner of an unknown class or id matches nothing, without an error.
    assert.equal((await c.get('/1.1/classes/LeftPhoto', { where: { $relatedTo: { object: ptr('NoSuchLeftClass', 'x1'), key: 'photos' } } }, { session: bob.sessionToken })).status, 200);
  });

  test('(a) users of a role by $relatedTo: hidden when the role is not readable', async () => {
    const c = h().client;
    const name = `left${randomBytes(4).toString('hex')}`;
    const role = await c.post('/1.1/roles', {
      name,
      ACL: { [alice.objectId]: { read: true, write: true } },
      users: { __op: 'AddRelation', objects: [ptr('_User', alice.objectId), ptr('_User', bob.objectId)] },
    }, { master: true });
    assert.equal(role.status, 201, JSON.stringify(role.body));
    // _User find is off by default; open it so that only the role's ACL decides.
    await c.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }, { master: true });
    try {
      const where = { $relatedTo: { object: ptr('_Role', role.body.objectId), key: 'users' } };
      assert.equal((await c.get('/1.1/users', { where }, { session: bob.sessionToken })).body.results.length, 0);
      assert.equal((await c.get('/1.1/users', { where }, { session: alice.sessionToken })).body.results.length, 2);
    } finally {
      await c.put('/1.1/larder/classes/_User/permissions', { find: { users: [], roles: [] } }, { master: true });
    }
  });

  test('(b) an inner query or $relatedTo naming an internal table is 103, also with the master key', async () => {
    const c = h().client;
    await c.post('/1.1/classes/LeftTarget', { k: 'settings' }, { master: true });
    for (const name of ['_larder_meta', '_larder_tokens', '_larder_sms_codes', '_larder_relations', '_Join', 'pg_user']) {
      for (const master of [false, true]) {
        const opts = master ? { master: true } : { session: alice.sessionToken };
        const inQuery = await c.get('/1.1/classes/LeftTarget', { where: { p: { $inQuery: { className: name, where: {} } } } }, opts);
        assertError(inQuery, 400, 103);
        assert.match(inQuery.body.error, /class name/i);
        assertError(await c.get('/1.1/classes/LeftTarget', { where: { k: { $select: { query: { className: name, where: {} }, key: 'key' } } } }, opts), 400, 103);
        assertError(await c.get('/1.1/classes/LeftTarget', { where: { k: { $dontSelect: { query: { className: name, where: {} }, key: 'key' } } } }, opts), 400, 103);
        assertError(await c.get('/1.1/classes/LeftTarget', { where: { $relatedTo: { object: ptr(name, 'x1'), key: 'r' } } }, opts), 400, 103);
        assertError(await c.get('/1.1/classes/LeftTarget', { where: { p: { $notInQuery: { className: name, where: {} } } }, count: 1, limit: 0 }, opts), 400, 103);
      }
    }
    // Built-in classes are still fine as inner classes.
    const ok = await c.get('/1.1/classes/LeftTarget', { where: { p: { $inQuery: { className: '_User', where: {} } } } }, { master: true });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('(c) a conditional user update or delete cannot name hidden fields (102) unless master', async () => {
    const c = h().client;
    const probes: unknown[] = [
      { sessionToken: { $regex: '^' } },
      { password: { $exists: true } },
      { authData: { $exists: false } },
      { $or: [{ objectId: bob.objectId }, { salt: { $exists: true } }] },
      { k: { $select: { query: { className: '_User', where: { sessionToken: { $regex: `^${alice.sessionToken.slice(0, 1)}` } } }, key: 'k' } } },
      { username: { $select: { query: { className: '_User', where: {} }, key: 'sessionToken' } } },
    ];
    for (const where of probes) {
      assertError(await c.put(`/1.1/users/${bob.objectId}`, { probe: 1 }, { session: bob.sessionToken, query: { where } }), 400, 102);
      assertError(await c.delete(`/1.1/users/${bob.objectId}`, { session: bob.sessionToken, query: { where } }), 400, 102);
    }
    const me = await c.get('/1.1/users/me', undefined, { session: bob.sessionToken });
    assert.equal(me.status, 200, 'bob still exists');
    assert.equal(me.body.probe, undefined, 'nothing was written');
    // The master key may use them.
    const res = await c.put(`/1.1/users/${bob.objectId}`, { probe: 2 }, { master: true, query: { where: { sessionToken: bob.sessionToken } } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  test("(c) inner queries of a user write's where see only what the caller can read", async () => {
    const c = h().client;
    const code = randomBytes(4).toString('hex');
    const secret = await c.post('/1.1/classes/LeftSecret', { code, k: 'same', ACL: { [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken });
    assert.equal(secret.status, 201);
    await c.put(`/1.1/users/${bob.objectId}`, { k: 'same' }, { session: bob.sessionToken });
    // Matches bob's row exactly when alice's private object has that code: an oracle if unchecked.
    const where = { k: { $select: { query: { className: 'LeftSecret', where: { code } }, key: 'k' } } };
    assertError(await c.put(`/1.1/users/${bob.objectId}`, { probe: 3 }, { session: bob.sessionToken, query: { where } }), 400, 305);
    assertError(await c.delete(`/1.1/users/${bob.objectId}`, { session: bob.sessionToken, query: { where } }), 400, 305);
    // Alice can read the object, so the same condition on her own row matches.
    await c.put(`/1.1/users/${alice.objectId}`, { k: 'same' }, { session: alice.sessionToken });
    const mine = await c.put(`/1.1/users/${alice.objectId}`, { probe: 4 }, { session: alice.sessionToken, query: { where } });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    // And the user row itself is still tested without its ACL (_User ignores ACLs for writes).
    await c.put(`/1.1/users/${bob.objectId}`, { ACL: { [alice.objectId]: { read: true } } }, { master: true });
    const own = await c.put(`/1.1/users/${bob.objectId}`, { probe: 5 }, { session: bob.sessionToken, query: { where: { k: 'same' } } });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal((await c.get(`/1.1/users/${bob.objectId}`, undefined, { master: true })).body.probe, 5);
  });
});

function assertEmptyAnon(res: { status: number; body: { results: unknown[] } }): void {
  assert.equal(res.status, 200);
  assert.equal(res.body.results.length, 0);
}
