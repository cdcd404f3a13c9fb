import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { seedUser, seedUsers } from './harness/seed-users.ts';

async function setPermissions(h: Harness, className: string, permissions: unknown): Promise<void> {
  const res = await h.client.put(`/1.1/larder/classes/${className}/permissions`, permissions, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

function denied(res: { status: number; body: unknown }, op: string): void {
  assert.deepEqual({ status: res.status, body: res.body }, { status: 403, body: { code: 1, error: `Forbidden to ${op} by class permissions.` } });
}

async function seedObject(h: Harness, className: string, body: Record<string, unknown> = { v: 1 }): Promise<string> {
  const res = await h.client.post(`/1.1/classes/${className}`, body, { master: true });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.objectId;
}

const NOBODY = { users: [], roles: [] };

forEachEngine('class permissions', (h) => {
  test('each of the six operations is checked on its own path; the master key bypasses', async () => {
    const id = await seedObject(h(), 'ClpOps');
    await setPermissions(h(), 'ClpOps', { get: NOBODY, find: NOBODY, create: NOBODY, update: NOBODY, delete: NOBODY });
    const c = h().client;
    denied(await c.get(`/1.1/classes/ClpOps/${id}`), 'get');
    denied(await c.get('/1.1/classes/ClpOps'), 'find');
    denied(await c.get('/1.1/classes/ClpOps', { count: 1, limit: 0 }), 'find');
    denied(await c.post('/1.1/classes/ClpOps', { v: 2 }), 'create');
    denied(await c.put(`/1.1/classes/ClpOps/${id}`, { v: 3 }), 'update');
    denied(await c.delete(`/1.1/classes/ClpOps/${id}`), 'delete');
    const master = await c.get(`/1.1/classes/ClpOps/${id}`, undefined, { master: true });
    assert.equal(master.body.v, 1, 'nothing changed');
    assert.equal((await c.get('/1.1/classes/ClpOps', { count: 1 }, { master: true })).body.count, 1);
    assert.equal((await c.put(`/1.1/classes/ClpOps/${id}`, { v: 4 }, { master: true })).status, 200);
    assert.equal((await c.post('/1.1/classes/ClpOps', { v: 5 }, { master: true })).status, 201);
    assert.equal((await c.delete(`/1.1/classes/ClpOps/${id}`, { master: true })).status, 200);
  });

  test('closing find still allows get by id', async () => {
    const id = await seedObject(h(), 'ClpGetOnly');
    await setPermissions(h(), 'ClpGetOnly', { find: NOBODY });
    denied(await h().client.get('/1.1/classes/ClpGetOnly'), 'find');
    assert.equal((await h().client.get(`/1.1/classes/ClpGetOnly/${id}`)).body.objectId, id);
  });

  test('batch items go through the same checks', async () => {
    const id = await seedObject(h(), 'ClpBatch');
    await setPermissions(h(), 'ClpBatch', { get: NOBODY, create: NOBODY, update: NOBODY, delete: NOBODY });
    const res = await h().client.post('/1.1/batch', {
      requests: [
        { method: 'GET', path: `/1.1/classes/ClpBatch/${id}` },
        { method: 'POST', path: '/1.1/classes/ClpBatch', body: { v: 2 } },
        { method: 'PUT', path: `/1.1/classes/ClpBatch/${id}`, body: { v: 3 } },
        { method: 'DELETE', path: `/1.1/classes/ClpBatch/${id}` },
      ],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((r: { error?: { error: string } }) => r.error?.error), [
      'Forbidden to get by class permissions.',
      'Forbidden to create by class permissions.',
      'Forbidden to update by class permissions.',
      'Forbidden to delete by class permissions.',
    ]);
    assert.equal((await h().client.get(`/1.1/classes/ClpBatch/${id}`, undefined, { master: true })).body.v, 1);
  });

  test('add_fields refuses writes that bring new fields, not writes of known ones', async () => {
    const id = await seedObject(h(), 'ClpFields', { known: 1 });
    await setPermissions(h(), 'ClpFields', { add_fields: NOBODY });
    assert.equal((await h().client.put(`/1.1/classes/ClpFields/${id}`, { known: 2 })).status, 200);
    assert.equal((await h().client.post('/1.1/classes/ClpFields', { known: 3 })).status, 201);
    denied(await h().client.put(`/1.1/classes/ClpFields/${id}`, { fresh: 1 }), 'add_fields');
    denied(await h().client.post('/1.1/classes/ClpFields', { known: 4, fresh: 1 }), 'add_fields');
    denied(await h().client.put(`/1.1/classes/ClpFields/${id}`, { 'fresh.deep': 1 }), 'add_fields');
    const schema = await h().client.get('/1.1/schemas/ClpFields', undefined, { master: true });
    assert.equal(JSON.stringify(schema.body).includes('fresh'), false);
    assert.equal((await h().client.put(`/1.1/classes/ClpFields/${id}`, { fresh: 1 }, { master: true })).status, 200);
  });

  test('onlySignInUsers admits any valid session, not anonymous or stale tokens', async () => {
    await seedObject(h(), 'ClpSignedIn');
    await setPermissions(h(), 'ClpSignedIn', { find: { onlySignInUsers: true } });
    const u = await seedUser(h());
    denied(await h().client.get('/1.1/classes/ClpSignedIn'), 'find');
    denied(await h().client.get('/1.1/classes/ClpSignedIn', undefined, { session: 'notarealtoken0000000000000' }), 'find');
    assert.equal((await h().client.get('/1.1/classes/ClpSignedIn', undefined, { session: u.sessionToken })).status, 200);
  });

  test('listed users and roles (inherited roles count)', async () => {
    await seedObject(h(), 'ClpListed');
    const [listed, inRole, inChild, outsider] = await seedUsers(h(), 4);
    const child = await h().client.post('/1.1/roles', {
      name: 'ClpChild', ACL: { '*': { read: true } },
      users: { __op: 'AddRelation', objects: [inChild.pointer] },
    }, { master: true });
    await h().client.post('/1.1/roles', {
      name: 'ClpEditors', ACL: { '*': { read: true } },
      users: { __op: 'AddRelation', objects: [inRole.pointer] },
      roles: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_Role', objectId: child.body.objectId }] },
    }, { master: true });
    await setPermissions(h(), 'ClpListed', { find: { users: [listed.objectId], roles: ['ClpEditors'] } });
    for (const u of [listed, inRole, inChild]) assert.equal((await h().client.get('/1.1/classes/ClpListed', undefined, { session: u.sessionToken })).status, 200);
    denied(await h().client.get('/1.1/classes/ClpListed', undefined, { session: outsider.sessionToken }), 'find');
    denied(await h().client.get('/1.1/classes/ClpListed'), 'find');
  });

  test('inner queries need find on their class: $inQuery, $notInQuery, $select, $dontSelect', async () => {
    const target = await seedObject(h(), 'ClpInner', { k: 'x' });
    await seedObject(h(), 'ClpOuter', { p: { __type: 'Pointer', className: 'ClpInner', objectId: target }, k: 'x' });
    await setPermissions(h(), 'ClpInner', { find: NOBODY });
    const inner = { className: 'ClpInner', where: {} };
    for (const where of [
      { p: { $inQuery: inner } },
      { p: { $notInQuery: inner } },
      { k: { $select: { query: inner, key: 'k' } } },
      { k: { $dontSelect: { query: inner, key: 'k' } } },
      { $or: [{ k: 'y' }, { p: { $inQuery: { className: 'ClpOuter', where: { p: { $inQuery: inner } } } } }] },
    ]) {
      denied(await h().client.get('/1.1/classes/ClpOuter', { where }), 'find');
    }
    const master = await h().client.get('/1.1/classes/ClpOuter', { where: { p: { $inQuery: inner } } }, { master: true });
    assert.equal(master.body.results.length, 1);
  });

  test('include leaves pointers to classes without get permission unresolved', async () => {
    const target = await seedObject(h(), 'ClpIncluded', { secret: 's' });
    const id = await seedObject(h(), 'ClpIncluder', { p: { __type: 'Pointer', className: 'ClpIncluded', objectId: target } });
    await setPermissions(h(), 'ClpIncluded', { get: NOBODY });
    const got = await h().client.get(`/1.1/classes/ClpIncluder/${id}`, { include: 'p' });
    assert.deepEqual(got.body.p, { __type: 'Pointer', className: 'ClpIncluded', objectId: target });
    const found = await h().client.get('/1.1/classes/ClpIncluder', { include: 'p' });
    assert.deepEqual(found.body.results[0].p, { __type: 'Pointer', className: 'ClpIncluded', objectId: target });
    const master = await h().client.get(`/1.1/classes/ClpIncluder/${id}`, { include: 'p' }, { master: true });
    assert.equal(master.body.p.secret, 's');
  });

  test('_User find is off by default: queries, inner queries and $select on users are refused', async () => {
    const u = await seedUser(h());
    await h().client.post('/1.1/classes/ClpPost', { author: u.pointer }, { master: true });
    denied(await h().client.get('/1.1/classes/_User', undefined, { session: u.sessionToken }), 'find');
    denied(await h().client.get('/1.1/classes/ClpPost', { where: { author: { $inQuery: { className: '_User', where: { username: u.username } } } } }), 'find');
    denied(await h().client.get('/1.1/classes/ClpPost', { where: { objectId: { $select: { query: { className: '_User', where: {} }, key: 'username' } } } }), 'find');
    const perms = await h().client.get('/1.1/larder/classes/_User/permissions', undefined, { master: true });
    assert.deepEqual(perms.body.find, { users: [], roles: [] });
    assert.deepEqual(perms.body.get, { '*': true });
    const master = await h().client.get('/1.1/classes/_User', { where: { objectId: u.objectId } }, { master: true });
    assert.equal(master.body.results.length, 1);
    // Getting one user by id stays open.
    assert.equal((await h().client.get(`/1.1/classes/_User/${u.objectId}`)).body.objectId, u.objectId);
  });

  test('a class default ACL applies to new objects without an ACL; "creator" is the creating user', async () => {
    const res = await h().client.put('/1.1/larder/classes/ClpOwned/defaultACL', { defaultACL: { creator: { read: true, write: true } } }, { master: true });
    assert.deepEqual(res.body, { defaultACL: { creator: { read: true, write: true } } });
    const [a, b] = await seedUsers(h(), 2);
    const created = await h().client.post('/1.1/classes/ClpOwned', { v: 1 }, { session: a.sessionToken });
    const id = created.body.objectId;
    assert.equal((await h().client.get(`/1.1/classes/ClpOwned/${id}`, undefined, { session: a.sessionToken })).body.v, 1);
    assert.deepEqual((await h().client.get(`/1.1/classes/ClpOwned/${id}`, undefined, { session: b.sessionToken })).body, {});
    const acl = await h().client.get(`/1.1/classes/ClpOwned/${id}`, { returnACL: true }, { master: true });
    assert.deepEqual(acl.body.ACL, { [a.objectId]: { read: true, write: true } });
    // An explicit ACL wins over the default.
    const open = await h().client.post('/1.1/classes/ClpOwned', { v: 2, ACL: { '*': { read: true } } }, { session: a.sessionToken });
    assert.equal((await h().client.get(`/1.1/classes/ClpOwned/${open.body.objectId}`, undefined, { session: b.sessionToken })).body.v, 2);
    // Without a session the creator entry is dropped: master key only.
    const anon = await h().client.post('/1.1/classes/ClpOwned', { v: 3 });
    assert.deepEqual((await h().client.get(`/1.1/classes/ClpOwned/${anon.body.objectId}`)).body, {});
    // Cleared: back to public read and write.
    await h().client.put('/1.1/larder/classes/ClpOwned/defaultACL', { defaultACL: null }, { master: true });
    const pub = await h().client.post('/1.1/classes/ClpOwned', { v: 4 });
    const pubAcl = await h().client.get(`/1.1/classes/ClpOwned/${pub.body.objectId}`, { returnACL: true }, { master: true });
    assert.deepEqual(pubAcl.body.ACL, { '*': { read: true, write: true } });
  });

  test('roles obey class permissions too', async () => {
    await setPermissions(h(), '_Role', { create: NOBODY });
    try {
      denied(await h().client.post('/1.1/roles', { name: 'ClpRole', ACL: { '*': { read: true } } }), 'create');
      assert.equal((await h().client.post('/1.1/roles', { name: 'ClpRole', ACL: { '*': { read: true } } }, { master: true })).status, 201);
    } finally {
      await setPermissions(h(), '_Role', { create: { '*': true } });
    }
  });
});
