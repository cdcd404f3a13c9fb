import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { forEachEngine } from './harness/engines.ts';
import { assertError, signUp, uniqueName } from './harness/user-helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

forEachEngine('users: sign-up, get, me, update, delete, query', (h) => {
  test('sign-up answers 201, Location and the whole user with a 25-char session token', async () => {
    const username = uniqueName();
    const res = await h().client.post('/1.1/users', { username, password: 'secret', email: `${username}@example.com`, age: 30 });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(String(res.headers.location), new RegExp(`/1.1/users/${res.body.objectId}$`));
    assert.match(res.body.sessionToken, /^[a-z0-9]{25}$/);
    assert.equal(res.body.username, username);
    assert.equal(res.body.email, `${username}@example.com`);
    assert.equal(res.body.age, 30);
    assert.equal(res.body.emailVerified, null, 'verification off: null');
    assert.equal(res.body.mobilePhoneVerified, false);
    assert.match(res.body.createdAt, ISO);
    assert.equal(res.body.createdAt, res.body.updatedAt);
    assert.equal(res.body.password, undefined);
    assert.equal(res.body.salt, undefined);
    // The password is stored as scrypt, never in the clear.
    const [row] = await h().db.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM "_User" WHERE "objectId" = ${res.body.objectId}`);
    assert.match(String(row.data.password), /^scrypt\$/);
    assert.ok(!JSON.stringify(row.data).includes('"secret"'));
  });

  test('POST /1.1/classes/_User signs up too, with its own Location', async () => {
    const res = await h().client.post('/1.1/classes/_User', { username: uniqueName(), password: 'x' });
    assert.equal(res.status, 201);
    assert.match(String(res.headers.location), new RegExp(`/1.1/classes/_User/${res.body.objectId}$`));
    assert.match(res.body.sessionToken, /^[a-z0-9]{25}$/);
  });

  test('missing and blank credentials: 200, 201, 217, 218, nothing written', async () => {
    const c = h().client;
    const [{ n: before }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM "_User"`);
    assertError(await c.post('/1.1/users', { password: 'x' }), 400, 200);
    assertError(await c.post('/1.1/users', { username: '', password: 'x' }), 400, 200);
    assertError(await c.post('/1.1/users', { username: uniqueName() }), 400, 201);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: '' }), 400, 201);
    assertError(await c.post('/1.1/users', { username: '   ', password: 'x' }), 400, 217);
    assertError(await c.post('/1.1/users', { username: 42, password: 'x' }), 400, 217);
    assertError(await c.post('/1.1/users', { username: { $ne: null }, password: 'x' }), 400, 217);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: '  ' }), 400, 218);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: 7 }), 400, 218);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: 'x', email: 'not-an-email' }), 400, 125);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: 'x', mobilePhoneNumber: '186 0000' }), 400, 127);
    assertError(await c.post('/1.1/users', [1]), 400, 107);
    const [{ n: after }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM "_User"`);
    assert.equal(after, before);
  });

  test('taken username, email and phone are 202, 203, 214 (case-sensitive), and nothing is half-written', async () => {
    const a = await signUp(h(), { email: `${uniqueName()}@example.com`, mobilePhoneNumber: '+8618600000001' });
    const c = h().client;
    assertError(await c.post('/1.1/users', { username: a.username, password: 'x' }), 400, 202);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: 'x', email: a.body.email }), 400, 203);
    assertError(await c.post('/1.1/users', { username: uniqueName(), password: 'x', mobilePhoneNumber: '+8618600000001' }), 400, 214);
    const upper = await c.post('/1.1/users', { username: a.username.toUpperCase(), password: 'x' });
    assert.equal(upper.status, 201, 'usernames are case-sensitive');
    const [{ n }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_auth_bindings WHERE user_id NOT IN (SELECT "objectId" FROM "_User")`);
    assert.equal(n, 0);
  });

  test('20 parallel sign-ups with one username create exactly one user (race on the unique index)', async () => {
    const username = uniqueName('race');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => h().client.post('/1.1/users', { username, password: `p${i}` })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses.filter((s) => s === 201).length, 1, JSON.stringify(results.map((r) => r.body)));
    for (const r of results.filter((x) => x.status !== 201)) assertError(r, 400, 202);
    const rows = await h().db.query(sql`SELECT 1 FROM "_User" WHERE data->>'username' = ${username}`);
    assert.equal(rows.length, 1);
  });

  test('a new user gets the ACL {"*":read, self: read+write} unless the body gives one', async () => {
    const u = await signUp(h());
    const got = await h().client.get(`/1.1/users/${u.objectId}`, { returnACL: 'true' }, { master: true });
    assert.deepEqual(got.body.ACL, { '*': { read: true }, [u.objectId]: { read: true, write: true } });
    const priv = await signUp(h(), { ACL: { '*': {} } });
    const [row] = await h().db.query<{ acl: unknown }>(sql`SELECT acl FROM "_User" WHERE "objectId" = ${priv.objectId}`);
    assert.deepEqual(row.acl, {});
    assertError(await h().client.get(`/1.1/users/${priv.objectId}`), 400, 211);
    assert.equal((await h().client.get(`/1.1/users/${priv.objectId}`, undefined, { master: true })).status, 200);
  });

  test('GET /users/<id> never shows password, salt or session token; unknown id is 400/211', async () => {
    const u = await signUp(h(), { nickname: 'n' });
    for (const path of [`/1.1/users/${u.objectId}`, `/1.1/classes/_User/${u.objectId}`]) {
      for (const extra of [{}, { session: u.sessionToken }, { master: true }]) {
        const got = await h().client.get(path, undefined, extra);
        assert.equal(got.status, 200);
        assert.equal(got.body.username, u.username);
        assert.equal(got.body.nickname, 'n');
        assert.equal(got.body.password, undefined);
        assert.equal(got.body.salt, undefined);
        assert.equal(got.body.sessionToken, undefined);
      }
    }
    assertError(await h().client.get('/1.1/users/000000000000000000000000'), 400, 211);
    assertError(await h().client.get('/1.1/classes/_User/000000000000000000000000'), 400, 211);
    const keys = await h().client.get(`/1.1/users/${u.objectId}`, { keys: 'nickname' });
    assert.deepEqual(Object.keys(keys.body).sort(), ['createdAt', 'nickname', 'objectId', 'updatedAt']);
  });

  test('GET /users/me answers the session user with its token; no or stale token is 400/211', async () => {
    const u = await signUp(h());
    const me = await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken });
    assert.equal(me.status, 200);
    assert.equal(me.body.objectId, u.objectId);
    assert.equal(me.body.sessionToken, u.sessionToken);
    assert.equal(me.body.password, undefined);
    assertError(await h().client.get('/1.1/users/me'), 400, 211);
    assertError(await h().client.get('/1.1/users/me', undefined, { session: 'qmdj8pdidnmyzp0c7yqil91oc' }), 400, 211);
    assertError(await h().client.get('/1.1/users/me', undefined, { session: 'x'.repeat(300) }), 400, 211);
  });

  test('update: own session or master key; another user\'s session or none is 403/206, whatever the ACL', async () => {
    const a = await signUp(h());
    const b = await signUp(h(), { ACL: { '*': { read: true, write: true } } });
    const ok = await h().client.put(`/1.1/users/${a.objectId}`, { nickname: 'mine' }, { session: a.sessionToken });
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.body).sort(), ['objectId', 'updatedAt']);
    assertError(await h().client.put(`/1.1/users/${a.objectId}`, { nickname: 'theirs' }, { session: b.sessionToken }), 403, 206);
    assertError(await h().client.put(`/1.1/users/${b.objectId}`, { nickname: 'public?' }, { session: a.sessionToken }), 403, 206);
    assertError(await h().client.put(`/1.1/classes/_User/${b.objectId}`, { nickname: 'public?' }), 403, 206);
    assert.equal((await h().client.put(`/1.1/users/${b.objectId}`, { nickname: 'admin' }, { master: true })).status, 200);
    const got = await h().client.get(`/1.1/users/${a.objectId}`);
    assert.equal(got.body.nickname, 'mine');
    assert.equal((await h().client.get(`/1.1/users/${b.objectId}`)).body.nickname, 'admin');
    assertError(await h().client.put('/1.1/users/000000000000000000000000', { x: 1 }, { master: true }), 400, 211);
  });

  test('update with fetchWhenSave/new returns the changed fields; a where that does not match is 305', async () => {
    const a = await signUp(h(), { score: 1 });
    const res = await h().client.request({ method: 'PUT', url: `/1.1/users/${a.objectId}`, body: { score: { __op: 'Increment', amount: 2 } }, session: a.sessionToken, query: { new: 'true' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.score, 3);
    const miss = await h().client.request({ method: 'PUT', url: `/1.1/users/${a.objectId}`, body: { score: 9 }, session: a.sessionToken, query: { where: { score: 100 } } });
    assertError(miss, 400, 305);
    assert.equal((await h().client.get(`/1.1/users/${a.objectId}`)).body.score, 3);
  });

  test('a username change must not conflict (202); email and phone changes too (203/214)', async () => {
    const a = await signUp(h(), { email: `${uniqueName()}@example.com`, mobilePhoneNumber: '+8613900000002' });
    const b = await signUp(h());
    assertError(await h().client.put(`/1.1/users/${b.objectId}`, { username: a.username }, { session: b.sessionToken }), 400, 202);
    assertError(await h().client.put(`/1.1/users/${b.objectId}`, { email: a.body.email }, { session: b.sessionToken }), 400, 203);
    assertError(await h().client.put(`/1.1/users/${b.objectId}`, { mobilePhoneNumber: '+8613900000002', nick: 'x' }, { session: b.sessionToken }), 400, 214);
    assert.equal((await h().client.get(`/1.1/users/${b.objectId}`)).body.nick, undefined, 'nothing half-written');
    const renamed = uniqueName();
    assert.equal((await h().client.put(`/1.1/users/${b.objectId}`, { username: renamed }, { session: b.sessionToken })).status, 200);
    assert.equal((await h().client.get(`/1.1/users/${b.objectId}`)).body.username, renamed);
    assertError(await h().client.put(`/1.1/users/${b.objectId}`, { username: '' }, { session: b.sessionToken }), 400, 217);
  });

  test('clients cannot write server-managed fields (117); the master key may set the verified flags', async () => {
    const a = await signUp(h());
    const c = h().client;
    for (const body of [{ sessionToken: 'aaaaaaaaaaaaaaaaaaaaaaaaa' }, { emailVerified: true }, { mobilePhoneVerified: true }, { salt: 'x' }, { 'sessionToken.x': 1 }]) {
      assertError(await c.put(`/1.1/users/${a.objectId}`, body, { session: a.sessionToken }), 400, 117);
      assertError(await c.post('/1.1/users', { username: uniqueName(), password: 'x', ...body }), 400, 117);
    }
    for (const body of [{ _failed_logins: 0 }, { __proto__x: 1 }]) {
      assertError(await c.put(`/1.1/users/${a.objectId}`, body, { session: a.sessionToken }), 400, 105);
    }
    assertError(await c.put(`/1.1/users/${a.objectId}`, { sessionToken: 'aaaaaaaaaaaaaaaaaaaaaaaaa' }, { master: true }), 400, 117);
    assert.equal((await c.put(`/1.1/users/${a.objectId}`, { emailVerified: true, mobilePhoneVerified: true }, { master: true })).status, 200);
    const me = await c.get('/1.1/users/me', undefined, { session: a.sessionToken });
    assert.equal(me.body.emailVerified, true);
    assert.equal(me.body.mobilePhoneVerified, true);
    assert.equal(me.body.sessionToken, a.sessionToken, 'the token was not overwritten');
  });

  test('a password can be set by a user without one or the master key; changing one takes updatePassword (117)', async () => {
    const a = await signUp(h());
    assertError(await h().client.put(`/1.1/users/${a.objectId}`, { password: 'new' }, { session: a.sessionToken }), 400, 117);
    assert.equal((await h().client.put(`/1.1/users/${a.objectId}`, { password: 'by-master' }, { master: true })).status, 200);
    assert.equal((await h().client.post('/1.1/login', { username: a.username, password: 'by-master' })).status, 200);
    assertError(await h().client.post('/1.1/login', { username: a.username, password: a.password }), 400, 210);
  });

  test('delete: own session or master key (206 otherwise); the token dies with the user', async () => {
    const a = await signUp(h());
    const b = await signUp(h());
    assertError(await h().client.delete(`/1.1/users/${a.objectId}`, { session: b.sessionToken }), 403, 206);
    assertError(await h().client.delete(`/1.1/users/${a.objectId}`), 403, 206);
    const del = await h().client.delete(`/1.1/users/${a.objectId}`, { session: a.sessionToken });
    assert.deepEqual([del.status, del.body], [200, {}]);
    assertError(await h().client.get(`/1.1/users/${a.objectId}`), 400, 211);
    assertError(await h().client.get('/1.1/users/me', undefined, { session: a.sessionToken }), 400, 211);
    assert.equal((await h().client.delete(`/1.1/classes/_User/${b.objectId}`, { master: true })).status, 200);
    assertError(await h().client.delete(`/1.1/users/${b.objectId}`, { master: true }), 400, 211);
    // The name is free again.
    assert.equal((await h().client.post('/1.1/users', { username: a.username, password: 'x' })).status, 201);
  });

  test('deleting a user removes its role memberships', async () => {
    const u = await signUp(h());
    const role = await h().client.post('/1.1/roles', {
      name: uniqueName('R'),
      ACL: { '*': { read: true } },
      users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: u.objectId }] },
    }, { master: true });
    assert.equal(role.status, 201, JSON.stringify(role.body));
    assert.equal((await h().client.delete(`/1.1/users/${u.objectId}`, { session: u.sessionToken })).status, 200);
    const rows = await h().db.query(sql`SELECT 1 FROM _larder_relations WHERE target_id = ${u.objectId}`);
    assert.equal(rows.length, 0);
  });

  test('GET /1.1/users needs the master key (the _User find permission is off by default)', async () => {
    const a = await signUp(h(), { team: 'blue' });
    const res = await h().client.get('/1.1/users', undefined, { session: a.sessionToken });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal((await h().client.get('/1.1/classes/_User')).status, 403);
    const all = await h().client.get('/1.1/users', { where: { team: 'blue' } }, { master: true });
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.results.map((u: { objectId: string }) => u.objectId), [a.objectId]);
    assert.equal(all.body.results[0].password, undefined);
    assert.equal(all.body.results[0].sessionToken, undefined);
    assert.equal(all.body.results[0].authData, undefined);
  });

  test('generic paths show no hidden user field: include of a _User pointer, batch get', async () => {
    const u = await signUp(h(), { authData: { github: { uid: uniqueName(), access_token: 't' } } });
    const post = await h().client.post('/1.1/classes/Post', { author: { __type: 'Pointer', className: '_User', objectId: u.objectId } });
    const got = await h().client.get(`/1.1/classes/Post/${post.body.objectId}`, { include: 'author' });
    assert.equal(got.body.author.username, u.username);
    for (const k of ['password', 'salt', 'sessionToken', 'authData']) assert.equal(got.body.author[k], undefined, k);
    const batch = await h().client.post('/1.1/batch', { requests: [{ method: 'GET', path: `/1.1/users/${u.objectId}` }] });
    assert.equal(batch.status, 200);
    assert.equal(batch.body[0].success.username, u.username);
    assert.equal(batch.body[0].success.sessionToken, undefined);
  });
  test('emailVerified follows the state table: null without email or with verification off; false when set with it on', async () => {
    const c = h().client;
    const setSettings = (v: Record<string, unknown>) => c.put('/1.1/larder/settings', v, { master: true });
    const off = await signUp(h(), { email: `${uniqueName()}@example.com` });
    assert.equal(off.body.emailVerified, null);
    assert.equal((await setSettings({ emailVerification: true })).status, 200);
    try {
      const on = await signUp(h(), { email: `${uniqueName()}@example.com` });
      assert.equal(on.body.emailVerified, false);
      assert.equal((await signUp(h())).body.emailVerified, null, 'no email: null');
      await c.put(`/1.1/users/${on.objectId}`, { emailVerified: true }, { master: true });
      // Same email again: not a change.
      await c.put(`/1.1/users/${on.objectId}`, { email: on.body.email }, { session: on.sessionToken });
      assert.equal((await c.get('/1.1/users/me', undefined, { session: on.sessionToken })).body.emailVerified, true);
      // A new email: false again.
      await c.put(`/1.1/users/${on.objectId}`, { email: `${uniqueName()}@example.com` }, { session: on.sessionToken });
      assert.equal((await c.get('/1.1/users/me', undefined, { session: on.sessionToken })).body.emailVerified, false);
      // The user whose email was set while verification was off gets false when it changes now.
      await c.put(`/1.1/users/${off.objectId}`, { email: `${uniqueName()}@example.com` }, { session: off.sessionToken });
      assert.equal((await c.get('/1.1/users/me', undefined, { session: off.sessionToken })).body.emailVerified, false);
    } finally {
      await setSettings({ emailVerification: false });
    }
  });

  test('a new phone number is unverified again', async () => {
    const u = await signUp(h(), { mobilePhoneNumber: '+8613700000004' });
    await h().client.put(`/1.1/users/${u.objectId}`, { mobilePhoneVerified: true }, { master: true });
    await h().client.put(`/1.1/users/${u.objectId}`, { mobilePhoneNumber: '+8613700000005' }, { session: u.sessionToken });
    const me = await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken });
    assert.equal(me.body.mobilePhoneNumber, '+8613700000005');
    assert.equal(me.body.mobilePhoneVerified, false);
  });

  test('with "verified email required to log in" on, an unverified email is 216', async () => {
    const c = h().client;
    const u = await signUp(h(), { email: `${uniqueName()}@example.com` });
    const noEmail = await signUp(h());
    assert.equal((await c.put('/1.1/larder/settings', { requireVerifiedEmailToLogin: true }, { master: true })).status, 200);
    try {
      assertError(await c.post('/1.1/login', { username: u.username, password: u.password }), 400, 216);
      assertError(await c.post('/1.1/login', { username: u.username, password: 'wrong' }), 400, 210);
      assert.equal((await c.post('/1.1/login', { username: noEmail.username, password: noEmail.password })).status, 200);
      await c.put(`/1.1/users/${u.objectId}`, { emailVerified: true }, { master: true });
      assert.equal((await c.post('/1.1/login', { username: u.username, password: u.password })).status, 200);
    } finally {
      await c.put('/1.1/larder/settings', { requireVerifiedEmailToLogin: false }, { master: true });
    }
  });
});
