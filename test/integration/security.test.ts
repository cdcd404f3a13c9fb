/**
 * The security suite for ACL, roles and class permissions (docs/security.md), on both engines.
 * Each test names the item of /work/shared/security-checklist.md (or of the issue) it covers.
 * The pattern everywhere: Alice owns a private object; Bob, a signed-in user, tries every path
 * to read or change it and must see nothing and change nothing.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { invalidationsReceived } from '../../src/auth/cache-invalidation.ts';
import { forEachEngine, startHarness, type Harness } from './harness/engines.ts';
import { rolePointer, seedUser, type SeededUser } from './harness/seed-users.ts';

const CLASS = 'SecPrivate';

interface World {
  alice: SeededUser;
  bob: SeededUser;
  /** Alice's private object: {secret: 's3cret', n: 1, nested: {x: 1}}, ACL Alice only. */
  priv: string;
  /** Bob's own public object in SecPublic, pointing at the private one, k = 's3cret'. */
  pub: string;
  adminRole: string;
  /** Readable by role:SecAdmins only. */
  adminOnly: string;
}

async function masterGet(h: Harness, className: string, id: string): Promise<Record<string, unknown>> {
  return (await h.client.get(`/1.1/classes/${className}/${id}`, undefined, { master: true })).body;
}

async function setup(h: Harness): Promise<World> {
  const alice = await seedUser(h);
  const bob = await seedUser(h);
  const c = h.client;
  const priv = (await c.post(`/1.1/classes/${CLASS}`, { secret: 's3cret', n: 1, nested: { x: 1 }, ACL: { [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken })).body.objectId;
  const pub = (await c.post('/1.1/classes/SecPublic', { k: 's3cret', p: { __type: 'Pointer', className: CLASS, objectId: priv } }, { session: bob.sessionToken })).body.objectId;
  const adminRole = (await c.post('/1.1/roles', { name: 'SecAdmins', ACL: { '*': { read: true } }, users: { __op: 'AddRelation', objects: [alice.pointer] } }, { master: true })).body.objectId;
  const adminOnly = (await c.post('/1.1/classes/SecAdminData', { v: 'top', ACL: { 'role:SecAdmins': { read: true, write: true } } }, { master: true })).body.objectId;
  assert.ok(priv && pub && adminRole && adminOnly);
  return { alice, bob, priv, pub, adminRole, adminOnly };
}

function forbiddenWrite(res: { status: number; body: unknown }, id: string): void {
  assert.deepEqual({ status: res.status, body: res.body }, { status: 403, body: { code: 1, error: `Forbidden writing by object's ACL, the object id is ${id}.` } });
}

forEachEngine('security', (h) => {
  let w: World;
  before(async () => {
    w = await setup(h());
  });

  test('[issue] get / find / count: another user\'s private object is absent', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    assert.deepEqual((await c.get(`/1.1/classes/${CLASS}/${w.priv}`, undefined, s)).body, {});
    assert.deepEqual((await c.get(`/1.1/classes/${CLASS}`, undefined, s)).body.results, []);
    assert.equal((await c.get(`/1.1/classes/${CLASS}`, { count: 1, limit: 0 }, s)).body.count, 0);
    for (const where of [{ objectId: w.priv }, { $or: [{ secret: 's3cret' }, { n: 1 }] }, { $and: [{ 'nested.x': 1 }] }, { secret: { $regex: '^s' } }]) {
      const res = await c.get(`/1.1/classes/${CLASS}`, { where, count: 1 }, s);
      assert.deepEqual([res.body.results, res.body.count], [[], 0], JSON.stringify(where));
    }
    // Anonymous too; and Alice sees it (the test can fail).
    assert.deepEqual((await c.get(`/1.1/classes/${CLASS}/${w.priv}`)).body, {});
    assert.equal((await c.get(`/1.1/classes/${CLASS}/${w.priv}`, undefined, { session: w.alice.sessionToken })).body.secret, 's3cret');
  });

  test('[issue] include: a pointer to an unreadable object stays a pointer', async () => {
    const s = { session: w.bob.sessionToken };
    const got = await h().client.get(`/1.1/classes/SecPublic/${w.pub}`, { include: 'p' }, s);
    assert.deepEqual(got.body.p, { __type: 'Pointer', className: CLASS, objectId: w.priv });
    const found = await h().client.get('/1.1/classes/SecPublic', { include: 'p', where: { objectId: w.pub } }, s);
    assert.deepEqual(found.body.results[0].p, { __type: 'Pointer', className: CLASS, objectId: w.priv });
    const alice = await h().client.get(`/1.1/classes/SecPublic/${w.pub}`, { include: 'p' }, { session: w.alice.sessionToken });
    assert.equal(alice.body.p.secret, 's3cret');
  });

  test('[issue] $inQuery / $notInQuery / $select / $dontSelect: inner queries obey the ACL', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    const inner = { className: CLASS, where: { secret: 's3cret' } };
    const ids = async (where: unknown, opts = s) => (await c.get('/1.1/classes/SecPublic', { where }, opts)).body.results.map((r: { objectId: string }) => r.objectId);
    assert.deepEqual(await ids({ p: { $inQuery: inner } }), []);
    assert.deepEqual(await ids({ p: { $notInQuery: inner } }), [w.pub]);
    assert.deepEqual(await ids({ k: { $select: { query: inner, key: 'secret' } } }), []);
    assert.deepEqual(await ids({ k: { $dontSelect: { query: inner, key: 'secret' } } }), [w.pub]);
    // Alice, who can read it, gets the opposite answers: the queries do reach the object.
    const a = { session: w.alice.sessionToken };
    assert.deepEqual(await ids({ p: { $inQuery: inner } }, a), [w.pub]);
    assert.deepEqual(await ids({ k: { $select: { query: inner, key: 'secret' } } }, a), [w.pub]);
    assert.deepEqual(await ids({ k: { $dontSelect: { query: inner, key: 'secret' } } }, a), []);
  });

  test('[issue] batch: GET, PUT and DELETE items of another user\'s object', async () => {
    const res = await h().client.post('/1.1/batch', {
      requests: [
        { method: 'GET', path: `/1.1/classes/${CLASS}/${w.priv}` },
        { method: 'PUT', path: `/1.1/classes/${CLASS}/${w.priv}`, body: { secret: 'pwned' } },
        { method: 'PUT', path: `/1.1/classes/${CLASS}/${w.priv}`, body: { 'nested.x': 99 } },
        { method: 'DELETE', path: `/1.1/classes/${CLASS}/${w.priv}` },
      ],
    }, { session: w.bob.sessionToken });
    assert.equal(res.status, 200);
    assert.ok(!res.body[0].success || Object.keys(res.body[0].success).length === 0, JSON.stringify(res.body[0]));
    assert.equal(JSON.stringify(res.body[0]).includes('s3cret'), false);
    for (const item of res.body.slice(1)) assert.deepEqual(item.error, { code: 1, error: `Forbidden writing by object's ACL, the object id is ${w.priv}.` });
    const save = await h().client.post('/1.1/batch/save', { requests: [{ method: 'PUT', path: `/1.1/classes/${CLASS}/${w.priv}`, body: { secret: 'pwned' } }] }, { session: w.bob.sessionToken });
    assert.equal(save.status, 403);
    const after = await masterGet(h(), CLASS, w.priv);
    assert.deepEqual([after.secret, after.nested], ['s3cret', { x: 1 }]);
  });

  test('[issue] writes: PUT, dot-notation, atomic ops, ACL change and DELETE are 403 and change nothing', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    forbiddenWrite(await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { secret: 'pwned' }, s), w.priv);
    forbiddenWrite(await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { 'nested.x': 2 }, s), w.priv);
    forbiddenWrite(await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { n: { __op: 'Increment', amount: 1 } }, s), w.priv);
    forbiddenWrite(await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { ACL: { '*': { read: true, write: true } } }, s), w.priv);
    forbiddenWrite(await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { n: 5 }, { ...s, query: { where: { n: 1 } } }), w.priv);
    forbiddenWrite(await c.delete(`/1.1/classes/${CLASS}/${w.priv}`, s), w.priv);
    forbiddenWrite(await c.delete(`/1.1/classes/${CLASS}/${w.pub},${w.priv}`, s), w.priv);
    forbiddenWrite(await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { secret: 'anon' }), w.priv);
    const after = await masterGet(h(), CLASS, w.priv);
    assert.deepEqual([after.secret, after.n, after.nested], ['s3cret', 1, { x: 1 }]);
    assert.equal((await masterGet(h(), 'SecPublic', w.pub)).objectId, w.pub, 'the multi-id delete removed nothing');
  });

  test('[checklist] role escalation by writing the relation table: refused on every path', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    const addBob = { users: { __op: 'AddRelation', objects: [w.bob.pointer] } };
    forbiddenWrite(await c.put(`/1.1/roles/${w.adminRole}`, addBob, s), w.adminRole);
    forbiddenWrite(await c.put(`/1.1/classes/_Role/${w.adminRole}`, addBob, s), w.adminRole);
    const batch = await c.post('/1.1/batch', { requests: [{ method: 'PUT', path: `/1.1/classes/_Role/${w.adminRole}`, body: addBob }, { method: 'PUT', path: `/1.1/roles/${w.adminRole}`, body: addBob }] }, s);
    for (const item of batch.body) assert.equal(item.error?.code, 1);
    const save = await c.post('/1.1/batch/save', { requests: [{ method: 'PUT', path: `/1.1/classes/_Role/${w.adminRole}`, body: addBob }] }, s);
    assert.equal(save.status, 403);
    forbiddenWrite(await c.put(`/1.1/roles/${w.adminRole}`, { users: { __op: 'RemoveRelation', objects: [w.alice.pointer] } }, s), w.adminRole);
    forbiddenWrite(await c.delete(`/1.1/roles/${w.adminRole}`, s), w.adminRole);
    // A role Bob creates cannot take the admins' name, and making the admin role its child
    // grants the admins Bob's role, not Bob the admins'.
    const dup = await c.post('/1.1/roles', { name: 'SecAdmins', ACL: { '*': { read: true } }, ...addBob }, s);
    assert.equal(dup.body.code, 137);
    const own = await c.post('/1.1/roles', { name: 'SecBobs', ACL: { '*': { read: true }, [w.bob.objectId]: { write: true } }, ...addBob, roles: { __op: 'AddRelation', objects: [rolePointer(w.adminRole)] } }, s);
    assert.equal(own.status, 201);
    // The join table is not a class.
    for (const name of ['_larder_relations', '_Join:users:_Role', '_Join']) {
      const res = await c.post(`/1.1/classes/${encodeURIComponent(name)}`, { owner_class: '_Role', owner_id: w.adminRole, key: 'users', target_class: '_User', target_id: w.bob.objectId }, s);
      assert.equal(res.status, 400, name);
      assert.equal(res.body.code, 103, name);
    }
    // Nothing changed: Bob still cannot read the admins' data, and the role has one member.
    assert.deepEqual((await c.get(`/1.1/classes/SecAdminData/${w.adminOnly}`, undefined, s)).body, {});
    const members = await c.get('/1.1/users', { where: { $relatedTo: { object: rolePointer(w.adminRole), key: 'users' } } }, { master: true });
    assert.deepEqual(members.body.results.map((u: { objectId: string }) => u.objectId), [w.alice.objectId]);
    assert.equal((await c.get(`/1.1/classes/SecAdminData/${w.adminOnly}`, undefined, { session: w.alice.sessionToken })).body.v, 'top');
  });

  test('[checklist] redirectClassNameForKey cannot leak _User session tokens', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    const where = { $relatedTo: { object: rolePointer(w.adminRole), key: 'users' } };
    // _User find is off by default: the redirected query is a _User find and is refused.
    const refused = await c.get('/1.1/classes/_Role', { redirectClassNameForKey: 'users', where }, s);
    assert.deepEqual({ status: refused.status, body: refused.body }, { status: 403, body: { code: 1, error: 'Forbidden to find by class permissions.' } });
    // Even where _User queries are allowed (and with the master key), no token or hash comes back.
    const team = (await c.post('/1.1/classes/SecTeam', { members: { __op: 'AddRelation', objects: [w.alice.pointer, w.bob.pointer] } }, s)).body.objectId;
    await c.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }, { master: true });
    try {
      for (const opts of [s, { master: true }]) {
        for (const query of [
          { redirectClassNameForKey: 'users', where },
          { redirectClassNameForKey: 'users', where, keys: 'sessionToken,password,salt' },
        ]) {
          const res = await c.get('/1.1/classes/_Role', query, opts);
          assert.equal(res.status, 200);
          assert.equal(res.body.className, '_User');
          assert.deepEqual(res.body.results.map((u: { objectId: string }) => u.objectId), [w.alice.objectId]);
          assert.doesNotMatch(JSON.stringify(res.body), /sessionToken|password|salt|s3cret/);
          assert.equal(JSON.stringify(res.body).includes(w.alice.sessionToken), false);
        }
        const viaTeam = await c.get('/1.1/classes/SecTeam', { redirectClassNameForKey: 'members', where: { $relatedTo: { object: { __type: 'Pointer', className: 'SecTeam', objectId: team }, key: 'members' } } }, opts);
        assert.equal(viaTeam.body.results.length, 2);
        assert.doesNotMatch(JSON.stringify(viaTeam.body), /sessionToken|password|salt/);
      }
    } finally {
      await c.put('/1.1/larder/classes/_User/permissions', { find: { users: [], roles: [] } }, { master: true });
    }
  });

  test('[checklist] hidden fields cannot be queried or sorted on ($or/$and, dot-notation, inner queries)', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    await c.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }, { master: true });
    try {
      const tok = w.alice.sessionToken;
      for (const where of [
        { sessionToken: tok },
        { sessionToken: { $regex: `^${tok[0]}` } },
        { $or: [{ sessionToken: { $exists: true } }, { username: 'x' }] },
        { $and: [{ 'sessionToken.x': 1 }] },
        { password: { $exists: true } },
      ]) {
        const res = await c.get('/1.1/classes/_User', { where }, s);
        assert.deepEqual([res.status, res.body.code], [400, 102], JSON.stringify(where));
      }
      const sorted = await c.get('/1.1/users', { order: '-sessionToken' }, s);
      assert.deepEqual([sorted.status, sorted.body.code], [400, 102]);
      for (const where of [
        { p: { $inQuery: { className: '_User', where: { sessionToken: tok } } } },
        { k: { $select: { query: { className: '_User', where: {} }, key: 'sessionToken' } } },
        { k: { $dontSelect: { query: { className: '_User', where: {} }, key: 'password' } } },
      ]) {
        const res = await c.get('/1.1/classes/SecPublic', { where }, s);
        assert.deepEqual([res.status, res.body.code], [400, 102], JSON.stringify(where));
      }
      // Ordinary fields of users stay queryable.
      assert.equal((await c.get('/1.1/classes/_User', { where: { username: w.alice.username } }, s)).body.results.length, 1);
    } finally {
      await c.put('/1.1/larder/classes/_User/permissions', { find: { users: [], roles: [] } }, { master: true });
    }
  });

  test('[checklist] session expiry/rotation on a cache hit: a rotated token is refused at once', async () => {
    const u = await seedUser(h());
    const c = h().client;
    const own = (await c.post('/1.1/classes/SecRot', { v: 1, ACL: { [u.objectId]: { read: true } } }, { master: true })).body.objectId;
    assert.equal((await c.get(`/1.1/classes/SecRot/${own}`, undefined, { session: u.sessionToken })).body.v, 1, 'cached now');
    const rotated = await c.put(`/1.1/users/${u.objectId}/refreshSessionToken`, {}, { session: u.sessionToken });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.sessionToken, u.sessionToken);
    assert.deepEqual((await c.get(`/1.1/classes/SecRot/${own}`, undefined, { session: u.sessionToken })).body, {});
    assert.equal((await c.get('/1.1/users/me', undefined, { session: u.sessionToken })).body.code, 211);
    assert.equal((await c.get(`/1.1/classes/SecRot/${own}`, undefined, { session: rotated.body.sessionToken })).body.v, 1);
  });

  test('[checklist] a rotated token is refused by another process too', async () => {
    const b = await startHarness(h().engine, { sameDatabaseAs: h() });
    try {
      const u = await seedUser(h());
      const own = (await h().client.post('/1.1/classes/SecRot', { v: 2, ACL: { [u.objectId]: { read: true } } }, { master: true })).body.objectId;
      assert.equal((await b.client.get(`/1.1/classes/SecRot/${own}`, undefined, { session: u.sessionToken })).body.v, 2, 'B cached the session');
      const seen = invalidationsReceived(b.app);
      const rotated = await h().client.put(`/1.1/users/${u.objectId}/refreshSessionToken`, {}, { session: u.sessionToken });
      assert.equal(rotated.status, 200);
      const deadline = Date.now() + 5000;
      while (invalidationsReceived(b.app) === seen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual((await b.client.get(`/1.1/classes/SecRot/${own}`, undefined, { session: u.sessionToken })).body, {});
    } finally {
      await b.stop();
    }
  });

  test('[checklist] operator injection: a session header that looks like JSON is just an unknown token', async () => {
    for (const token of ['{"$ne":null}', '{"$regex":".*"}', "' OR '1'='1", 'x'.repeat(5000)]) {
      const res = await h().client.get(`/1.1/classes/${CLASS}/${w.priv}`, undefined, { session: token });
      assert.deepEqual([res.status, res.body], [200, {}], token.slice(0, 20));
    }
  });

  test('[checklist] internal tables are not reachable through generic routes', async () => {
    const c = h().client;
    // 'settings' is a key of _larder_meta: a $select that could read that table would match this.
    await c.post('/1.1/classes/SecProbe', { k: 'settings' }, { master: true });
    for (const name of ['_larder_meta', '_larder_classes', '_larder_relations', '_larder_migrations', '_larder_auth_bindings', '_larder_login_failures']) {
      for (const res of [
        await c.get(`/1.1/classes/${name}`, undefined, { master: true }),
        await c.get(`/1.1/classes/${name}/x`, undefined, { master: true }),
        await c.post(`/1.1/classes/${name}`, { key: 'settings' }, { master: true }),
        await c.get(`/1.1/scan/classes/${name}`, undefined, { master: true }),
        await c.get(`/1.1/schemas/${name}`, undefined, { master: true }),
        await c.put(`/1.1/larder/classes/${name}/permissions`, { find: { '*': true } }, { master: true }),
      ]) {
        assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 103, name);
      }
      // An inner query on an internal table reads nothing (no class of that name exists).
      const leak = await c.get('/1.1/classes/SecProbe', { where: { k: { $select: { query: { className: name, where: {} }, key: 'key' } } } }, { master: true });
      assert.ok(leak.status >= 400 || leak.body.results.length === 0, name);
    }
  });

  test('[issue] class permissions on every path (get, find, count, create, update, delete, include, inner queries, batch, redirect)', async () => {
    const c = h().client;
    const s = { session: w.bob.sessionToken };
    const id = (await c.post('/1.1/classes/SecLocked', { v: 1 }, { master: true })).body.objectId;
    const holder = (await c.post('/1.1/classes/SecHolder', { p: { __type: 'Pointer', className: 'SecLocked', objectId: id }, k: 1, rel: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'SecLocked', objectId: id }] } }, { master: true })).body.objectId;
    const none = { users: [], roles: [] };
    await c.put('/1.1/larder/classes/SecLocked/permissions', { get: none, find: none, create: none, update: none, delete: none, add_fields: none }, { master: true });
    const refusals = [
      await c.get(`/1.1/classes/SecLocked/${id}`, undefined, s),
      await c.get('/1.1/classes/SecLocked', undefined, s),
      await c.get('/1.1/classes/SecLocked', { count: 1, limit: 0 }, s),
      await c.post('/1.1/classes/SecLocked', { v: 2 }, s),
      await c.put(`/1.1/classes/SecLocked/${id}`, { v: 3 }, s),
      await c.delete(`/1.1/classes/SecLocked/${id}`, s),
      await c.get('/1.1/classes/SecHolder', { where: { p: { $inQuery: { className: 'SecLocked', where: {} } } } }, s),
      await c.get('/1.1/classes/SecHolder', { where: { k: { $select: { query: { className: 'SecLocked', where: {} }, key: 'v' } } } }, s),
      await c.get('/1.1/classes/SecHolder', { redirectClassNameForKey: 'rel', where: { $relatedTo: { object: { __type: 'Pointer', className: 'SecHolder', objectId: holder }, key: 'rel' } } }, s),
    ];
    for (const r of refusals) assert.equal(r.status, 403, JSON.stringify(r.body));
    const batch = await c.post('/1.1/batch', { requests: [{ method: 'GET', path: `/1.1/classes/SecLocked/${id}` }, { method: 'PUT', path: `/1.1/classes/SecLocked/${id}`, body: { v: 4 } }] }, s);
    for (const item of batch.body) assert.match(item.error.error, /by class permissions/);
    const included = await c.get(`/1.1/classes/SecHolder/${holder}`, { include: 'p' }, s);
    assert.deepEqual(included.body.p, { __type: 'Pointer', className: 'SecLocked', objectId: id });
    const scan = await c.get('/1.1/scan/classes/SecLocked', undefined, s);
    assert.equal(scan.status >= 400, true);
    assert.equal((await masterGet(h(), 'SecLocked', id)).v, 1);
  });

  test('[issue] the master key bypasses ACL and class permissions', async () => {
    const c = h().client;
    assert.equal((await masterGet(h(), CLASS, w.priv)).secret, 's3cret');
    assert.equal((await c.get(`/1.1/classes/${CLASS}`, { count: 1 }, { master: true })).body.count, 1);
    assert.equal((await masterGet(h(), 'SecAdminData', w.adminOnly)).v, 'top');
    assert.equal((await c.put(`/1.1/classes/${CLASS}/${w.priv}`, { n: 2 }, { master: true })).status, 200);
    assert.equal((await c.put(`/1.1/roles/${w.adminRole}`, { note: 'm' }, { master: true })).status, 200);
  });
});
