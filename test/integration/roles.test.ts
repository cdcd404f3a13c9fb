import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, startHarness, type Harness } from './harness/engines.ts';
import { rolePointer, seedUser, seedUsers } from './harness/seed-users.ts';
import { invalidationsReceived } from '../../src/auth/cache-invalidation.ts';
import { principalCache } from '../../src/auth/principal-cache.ts';

const PUBLIC_READ = { '*': { read: true } };

/** Creates a role with the master key and returns its objectId. */
async function makeRole(h: Harness, name: string, extra: Record<string, unknown> = {}, acl: unknown = PUBLIC_READ): Promise<string> {
  const res = await h.client.post('/1.1/roles', { name, ACL: acl, ...extra }, { master: true });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.objectId;
}

function addUsers(...ids: string[]) {
  return { __op: 'AddRelation', objects: ids.map((objectId) => ({ __type: 'Pointer', className: '_User', objectId })) };
}

function addRoles(...ids: string[]) {
  return { __op: 'AddRelation', objects: ids.map(rolePointer) };
}

/** An object only holders of `role:<name>` can read. */
async function secretFor(h: Harness, roleName: string, className = 'Secret'): Promise<string> {
  const res = await h.client.post(`/1.1/classes/${className}`, { v: 1, ACL: { [`role:${roleName}`]: { read: true } } }, { master: true });
  assert.equal(res.status, 201);
  return res.body.objectId;
}

async function canRead(h: Harness, session: string, className: string, id: string): Promise<boolean> {
  const res = await h.client.get(`/1.1/classes/${className}/${id}`, undefined, { session });
  assert.equal(res.status, 200);
  return res.body.objectId === id;
}

forEachEngine('roles', (h) => {
  test('create answers 201 with Location; GET shows exactly the documented shape', async () => {
    const res = await h().client.post('/1.1/roles', { name: 'Shape', ACL: PUBLIC_READ });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'objectId']);
    assert.match(String(res.headers.location), new RegExp(`/1\\.1/roles/${res.body.objectId}$`));
    const got = await h().client.get(`/1.1/roles/${res.body.objectId}`);
    assert.equal(got.status, 200);
    assert.deepEqual(Object.keys(got.body).sort(), ['createdAt', 'name', 'objectId', 'roles', 'updatedAt', 'users']);
    assert.equal(got.body.name, 'Shape');
    assert.deepEqual(got.body.users, { __type: 'Relation', className: '_User' });
    assert.deepEqual(got.body.roles, { __type: 'Relation', className: '_Role' });
    const viaClasses = await h().client.get(`/1.1/classes/_Role/${res.body.objectId}`);
    assert.deepEqual(viaClasses.body, got.body);
  });

  test('/1.1/classes/_Role creates roles with the same rules', async () => {
    const res = await h().client.post('/1.1/classes/_Role', { name: 'ViaClasses', ACL: PUBLIC_READ });
    assert.equal(res.status, 201);
    assert.match(String(res.headers.location), /\/1\.1\/classes\/_Role\//);
    const noAcl = await h().client.post('/1.1/classes/_Role', { name: 'ViaClassesNoAcl' });
    assert.deepEqual({ status: noAcl.status, body: noAcl.body }, { status: 400, body: { code: 1, error: 'Role ACL is required.' } });
  });

  test('ACL is required: 400 {"code":1,"error":"Role ACL is required."} and nothing stored', async () => {
    for (const body of [{ name: 'NoAcl' }, { name: 'NoAcl', ACL: null }]) {
      const res = await h().client.post('/1.1/roles', body, { master: true });
      assert.deepEqual({ status: res.status, body: res.body }, { status: 400, body: { code: 1, error: 'Role ACL is required.' } });
    }
    const found = await h().client.get('/1.1/roles', { where: { name: 'NoAcl' } }, { master: true });
    assert.deepEqual(found.body.results, []);
  });

  test('names: required, [A-Za-z0-9_] only (139), unique (137)', async () => {
    for (const name of [undefined, '', 'has space', 'dash-ed', 'ünï', 42, 'x'.repeat(129)]) {
      const res = await h().client.post('/1.1/roles', { name, ACL: PUBLIC_READ }, { master: true });
      assert.equal(res.status, 400, `name ${JSON.stringify(name)}`);
      assert.equal(res.body.code, 139, `name ${JSON.stringify(name)}`);
    }
    await makeRole(h(), 'Unique_1');
    const dup = await h().client.post('/1.1/roles', { name: 'Unique_1', ACL: PUBLIC_READ }, { master: true });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.code, 137);
    assert.match(dup.body.error, /Unique_1/);
  });

  test('concurrent creates of one name: exactly one wins', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => h().client.post('/1.1/roles', { name: 'Racer', ACL: PUBLIC_READ }, { master: true })));
    assert.deepEqual(all.map((r) => r.status).sort(), [201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of all.filter((x) => x.status === 400)) assert.equal(r.body.code, 137);
    const found = await h().client.get('/1.1/roles', { where: { name: 'Racer' }, count: 1 }, { master: true });
    assert.equal(found.body.count, 1);
  });

  test('the name is immutable, also for the master key; repeating it is harmless', async () => {
    const id = await makeRole(h(), 'Fixed', {}, { '*': { read: true, write: true } });
    for (const extra of [{}, { master: true }]) {
      const res = await h().client.put(`/1.1/roles/${id}`, { name: 'Renamed' }, extra);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 117);
    }
    const same = await h().client.put(`/1.1/roles/${id}`, { name: 'Fixed', note: 'x' });
    assert.equal(same.status, 200);
    const got = await h().client.get(`/1.1/roles/${id}`);
    assert.equal(got.body.name, 'Fixed');
    assert.equal(got.body.note, 'x');
    const dotted = await h().client.put(`/1.1/classes/_Role/${id}`, { name: { __op: 'Delete' } }, { master: true });
    assert.equal(dotted.status, 400);
    assert.equal((await h().client.get(`/1.1/roles/${id}`)).body.name, 'Fixed');
  });

  test('users/roles take only AddRelation/RemoveRelation of _User/_Role pointers (128)', async () => {
    const id = await makeRole(h(), 'Typed');
    const bad = [
      { users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Post', objectId: 'abc' }] } },
      { roles: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: 'abc' }] } },
      { users: [{ __type: 'Pointer', className: '_User', objectId: 'abc' }] },
      { users: { __op: 'Delete' } },
      { roles: 'x' },
      { users: { __type: 'Relation', className: '_Role' } },
    ];
    for (const body of bad) {
      const res = await h().client.put(`/1.1/roles/${id}`, body, { master: true });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 128, JSON.stringify(body));
      const created = await h().client.post('/1.1/roles', { name: 'TypedNew', ACL: PUBLIC_READ, ...body }, { master: true });
      assert.equal(created.body.code, 128, JSON.stringify(body));
    }
    const marker = await h().client.put(`/1.1/roles/${id}`, { users: { __type: 'Relation', className: '_User' } }, { master: true });
    assert.equal(marker.status, 200);
  });

  test('roles of a user: where users = <_User pointer>; users of a role: $relatedTo', async () => {
    const [a, b] = await seedUsers(h(), 2);
    const r1 = await makeRole(h(), 'Members_1', { users: addUsers(a.objectId, b.objectId) });
    const r2 = await makeRole(h(), 'Members_2', { users: addUsers(a.objectId) });
    await makeRole(h(), 'Members_3');
    const ofA = await h().client.get('/1.1/roles', { where: { users: a.pointer }, order: 'name' });
    assert.deepEqual(ofA.body.results.map((r: { name: string }) => r.name), ['Members_1', 'Members_2']);
    const ofB = await h().client.get('/1.1/classes/_Role', { where: { users: b.pointer } });
    assert.deepEqual(ofB.body.results.map((r: { objectId: string }) => r.objectId), [r1]);
    const usersOf = await h().client.get('/1.1/classes/_User', { where: { $relatedTo: { object: rolePointer(r1), key: 'users' } }, order: 'username' }, { master: true });
    assert.deepEqual(usersOf.body.results.map((u: { objectId: string }) => u.objectId).sort(), [a.objectId, b.objectId].sort());
    for (const u of usersOf.body.results) {
      assert.equal(u.sessionToken, undefined);
      assert.equal(u.password, undefined);
    }
    const remove = await h().client.put(`/1.1/roles/${r2}`, { users: { __op: 'RemoveRelation', objects: [a.pointer] } }, { master: true });
    assert.equal(remove.status, 200);
    const after = await h().client.get('/1.1/roles', { where: { users: a.pointer } });
    assert.deepEqual(after.body.results.map((r: { objectId: string }) => r.objectId), [r1]);
  });

  test('update and delete need write permission on the role (403, no change); master bypasses', async () => {
    const [owner, other] = await seedUsers(h(), 2);
    const id = await makeRole(h(), 'Guarded', {}, { '*': { read: true }, [owner.objectId]: { write: true } });
    const denied = await h().client.put(`/1.1/roles/${id}`, { note: 'x' }, { session: other.sessionToken });
    assert.deepEqual({ status: denied.status, body: denied.body }, { status: 403, body: { code: 1, error: `Forbidden writing by object's ACL, the object id is ${id}.` } });
    const anon = await h().client.put(`/1.1/roles/${id}`, { note: 'x' });
    assert.equal(anon.status, 403);
    assert.equal((await h().client.get(`/1.1/roles/${id}`)).body.note, undefined);
    const allowed = await h().client.put(`/1.1/roles/${id}`, { note: 'owner' }, { session: owner.sessionToken });
    assert.equal(allowed.status, 200);
    const del = await h().client.delete(`/1.1/roles/${id}`, { session: other.sessionToken });
    assert.equal(del.status, 403);
    assert.equal((await h().client.get(`/1.1/roles/${id}`)).body.objectId, id);
    const master = await h().client.put(`/1.1/roles/${id}`, { note: 'master' }, { master: true });
    assert.equal(master.status, 200);
    const gone = await h().client.delete(`/1.1/roles/${id}`, { session: owner.sessionToken });
    assert.equal(gone.status, 200);
    const missing = await h().client.get(`/1.1/roles/${id}`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 211);
  });

  test('inheritance through any depth: a user in a child role holds every ancestor role', async () => {
    const u = await seedUser(h());
    // Chain: Top <- L1 <- L2 <- L3 <- L4 <- Leaf (each role's `roles` holds its child).
    const leaf = await makeRole(h(), 'Deep_Leaf', { users: addUsers(u.objectId) });
    let child = leaf;
    for (const name of ['Deep_L4', 'Deep_L3', 'Deep_L2', 'Deep_L1', 'Deep_Top']) child = await makeRole(h(), name, { roles: addRoles(child) });
    const secret = await secretFor(h(), 'Deep_Top');
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), true);
    const stranger = await seedUser(h());
    assert.equal(await canRead(h(), stranger.sessionToken, 'Secret', secret), false);
    // Membership does not flow downwards: a user of the top role does not hold the leaf role.
    const topUser = await seedUser(h());
    await h().client.put(`/1.1/roles/${child}`, { users: addUsers(topUser.objectId) }, { master: true });
    const leafSecret = await secretFor(h(), 'Deep_Leaf');
    assert.equal(await canRead(h(), topUser.sessionToken, 'Secret', leafSecret), false);
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', leafSecret), true);
  });

  test('a cycle of roles terminates and grants both roles', async () => {
    const u = await seedUser(h());
    const a = await makeRole(h(), 'Cycle_A', { users: addUsers(u.objectId) });
    const b = await makeRole(h(), 'Cycle_B', { roles: addRoles(a) });
    await h().client.put(`/1.1/roles/${a}`, { roles: addRoles(b) }, { master: true });
    const self = await makeRole(h(), 'Cycle_Self');
    await h().client.put(`/1.1/roles/${self}`, { roles: addRoles(self), users: addUsers(u.objectId) }, { master: true });
    for (const name of ['Cycle_A', 'Cycle_B', 'Cycle_Self']) {
      assert.equal(await canRead(h(), u.sessionToken, 'Secret', await secretFor(h(), name)), true, name);
    }
  });

  test('membership changes and role deletion take effect on the next request (cache invalidated)', async () => {
    const u = await seedUser(h());
    const role = await makeRole(h(), 'Cached');
    const secret = await secretFor(h(), 'Cached');
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), false);
    assert.ok(principalCache(h().app).size > 0, 'the session was cached');
    await h().client.put(`/1.1/roles/${role}`, { users: addUsers(u.objectId) }, { master: true });
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), true);
    await h().client.put(`/1.1/roles/${role}`, { users: { __op: 'RemoveRelation', objects: [u.pointer] } }, { master: true });
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), false);
    // Through a parent: adding the user's role as a child of another role.
    const parent = await makeRole(h(), 'Cached_Parent');
    const parentSecret = await secretFor(h(), 'Cached_Parent');
    await h().client.put(`/1.1/roles/${role}`, { users: addUsers(u.objectId) }, { master: true });
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', parentSecret), false);
    await h().client.put(`/1.1/roles/${parent}`, { roles: addRoles(role) }, { master: true });
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', parentSecret), true);
    await h().client.delete(`/1.1/roles/${role}`, { master: true });
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', parentSecret), false);
    assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), false);
  });

  test('a role change on one app is seen by another app on the same database', async () => {
    const b = await startHarness(h().engine, { sameDatabaseAs: h() });
    try {
      const u = await seedUser(h());
      const role = await makeRole(h(), 'CrossProcess');
      const secret = await secretFor(h(), 'CrossProcess');
      // B resolves and caches the session without the role.
      assert.equal(await canRead(b, u.sessionToken, 'Secret', secret), false);
      assert.ok(principalCache(b.app).size > 0);
      const before = invalidationsReceived(b.app);
      const res = await h().client.put(`/1.1/roles/${role}`, { users: addUsers(u.objectId) }, { master: true });
      assert.equal(res.status, 200);
      // The notification is delivered asynchronously after A's commit; wait for B to apply it.
      const deadline = Date.now() + 5000;
      while (invalidationsReceived(b.app) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.ok(invalidationsReceived(b.app) > before, 'B heard the change');
      assert.equal(await canRead(b, u.sessionToken, 'Secret', secret), true);
      // And back: removal on B is seen by A, whose cache holds the role now.
      assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), true);
      const beforeA = invalidationsReceived(h().app);
      await b.client.put(`/1.1/roles/${role}`, { users: { __op: 'RemoveRelation', objects: [u.pointer] } }, { master: true });
      const deadlineA = Date.now() + 5000;
      while (invalidationsReceived(h().app) === beforeA && Date.now() < deadlineA) await new Promise((r) => setTimeout(r, 5));
      assert.equal(await canRead(h(), u.sessionToken, 'Secret', secret), false);
    } finally {
      await b.stop();
    }
  });
});
