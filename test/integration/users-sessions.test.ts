import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { assertError, logIn, signUp } from './harness/user-helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A private object only `userId` can read; returns a reader that says whether `session` sees it. */
async function privateObject(h: Harness, userId: string): Promise<(session: string) => Promise<boolean>> {
  const obj = await h.client.post('/1.1/classes/Diary', { text: 'secret', ACL: { [userId]: { read: true, write: true } } });
  assert.equal(obj.status, 201);
  return async (session) => (await h.client.get(`/1.1/classes/Diary/${obj.body.objectId}`, undefined, { session })).body.text === 'secret';
}

forEachEngine('users: session tokens, refreshSessionToken, updatePassword', (h) => {
  test('session tokens are unique-indexed', async () => {
    const rows = await h().db.query<{ indexdef: string }>(sql`SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '_User' AND indexname = '_User_unique_sessionToken'`);
    assert.equal(rows.length, 1);
    assert.match(rows[0].indexdef, /UNIQUE INDEX .*\(\(data ->> 'sessionToken'::text\)\)/);
    const a = await signUp(h());
    const b = await signUp(h());
    assert.notEqual(a.sessionToken, b.sessionToken);
  });

  test('refreshSessionToken: exactly {objectId, updatedAt, sessionToken}; the old token stops working at once', async () => {
    const u = await signUp(h());
    const canRead = await privateObject(h(), u.objectId);
    assert.equal(await canRead(u.sessionToken), true, 'cached principal of the old token');
    const res = await h().client.put(`/1.1/users/${u.objectId}/refreshSessionToken`, undefined, { session: u.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.sessionToken, /^[a-z0-9]{25}$/);
    assert.notEqual(res.body.sessionToken, u.sessionToken);
    assert.deepEqual(Object.keys(res.body).sort(), ['objectId', 'sessionToken', 'updatedAt']);
    assert.equal(res.body.objectId, u.objectId);
    assert.match(res.body.updatedAt, ISO);
    assertError(await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken }), 400, 211);
    assert.equal(await canRead(u.sessionToken), false, 'old token no longer resolves (cache dropped)');
    assert.equal(await canRead(res.body.sessionToken), true);
    assert.equal((await h().client.get('/1.1/users/me', undefined, { session: res.body.sessionToken })).body.objectId, u.objectId);
    // Login now hands out the new token.
    assert.equal((await logIn(h(), { username: u.username, password: u.password })).body.sessionToken, res.body.sessionToken);
  });

  test('refreshSessionToken: master key without a session works; another user\'s session is 403/206', async () => {
    const u = await signUp(h());
    const other = await signUp(h());
    assertError(await h().client.put(`/1.1/users/${u.objectId}/refreshSessionToken`, undefined, { session: other.sessionToken }), 403, 206);
    assertError(await h().client.put(`/1.1/users/${u.objectId}/refreshSessionToken`), 403, 206);
    const res = await h().client.put(`/1.1/users/${u.objectId}/refreshSessionToken`, undefined, { master: true });
    assert.equal(res.status, 200);
    assert.notEqual(res.body.sessionToken, u.sessionToken);
    assertError(await h().client.put('/1.1/users/000000000000000000000000/refreshSessionToken', undefined, { master: true }), 400, 211);
  });

  test('updatePassword: {updatedAt, objectId, sessionToken}; the token rotates; old password and token stop working', async () => {
    const u = await signUp(h());
    const canRead = await privateObject(h(), u.objectId);
    assert.equal(await canRead(u.sessionToken), true);
    const res = await h().client.put(`/1.1/users/${u.objectId}/updatePassword`, { old_password: u.password, new_password: 'n3w' }, { session: u.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['objectId', 'sessionToken', 'updatedAt']);
    assert.match(res.body.updatedAt, ISO);
    assert.notEqual(res.body.sessionToken, u.sessionToken);
    assert.equal(await canRead(u.sessionToken), false);
    assert.equal(await canRead(res.body.sessionToken), true);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 210);
    const login = await logIn(h(), { username: u.username, password: 'n3w' });
    assert.equal(login.status, 200);
    assert.equal(login.body.sessionToken, res.body.sessionToken);
  });

  test('updatePassword: wrong old password 210, blank new 218, other user 206; wrong guesses count towards the lock', async () => {
    const u = await signUp(h());
    const other = await signUp(h());
    const put = (body: unknown, extra: Record<string, unknown> = { session: u.sessionToken }) =>
      h().client.put(`/1.1/users/${u.objectId}/updatePassword`, body, extra);
    assertError(await put({ old_password: u.password, new_password: 'x' }, { session: other.sessionToken }), 403, 206);
    assertError(await put({ old_password: u.password, new_password: '  ' }), 400, 218);
    assertError(await put({ old_password: u.password }), 400, 218);
    assertError(await put({ old_password: { $ne: null }, new_password: 'x' }), 400, 1);
    for (let i = 0; i < 6; i++) assertError(await put({ old_password: `guess${i}`, new_password: 'x' }), 400, 210);
    assertError(await put({ old_password: 'guess7', new_password: 'x' }), 400, 219);
    assertError(await put({ old_password: u.password, new_password: 'x' }), 400, 219);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
    // Nothing changed: the token still works.
    assert.equal((await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken })).status, 200);
  });

  test('updatePassword with the right old password works while someone else has locked the login', async () => {
    const u = await signUp(h());
    for (let i = 0; i < 7; i++) await logIn(h(), { username: u.username, password: `attacker${i}` });
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
    const res = await h().client.put(`/1.1/users/${u.objectId}/updatePassword`, { old_password: u.password, new_password: 'n3w-pass' }, { session: u.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // The owner proved the password: the lock is cleared and the new password logs in.
    assert.equal((await logIn(h(), { username: u.username, password: 'n3w-pass' })).status, 200);
  });

  test('the lock can be tuned per app (loginLockThreshold, loginLockMinutes) or turned off', async () => {
    const c = h().client;
    try {
      assert.equal((await c.put('/1.1/larder/settings', { loginLockThreshold: 3 }, { master: true })).status, 200);
      const u = await signUp(h());
      for (let i = 0; i < 2; i++) assertError(await logIn(h(), { username: u.username, password: 'wrong' }), 400, 210);
      assertError(await logIn(h(), { username: u.username, password: 'wrong' }), 400, 219);
      assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
      assert.equal((await c.put('/1.1/larder/settings', { loginLockThreshold: 0 }, { master: true })).status, 200);
      const v = await signUp(h());
      for (let i = 0; i < 12; i++) assertError(await logIn(h(), { username: v.username, password: 'wrong' }), 400, 210);
      assert.equal((await logIn(h(), { username: v.username, password: v.password })).status, 200);
      for (const bad of [{ loginLockThreshold: -1 }, { loginLockThreshold: 1.5 }, { loginLockMinutes: 0 }, { loginLockMinutes: 'x' }]) {
        assertError(await c.put('/1.1/larder/settings', bad, { master: true }), 400, 1);
      }
    } finally {
      await c.put('/1.1/larder/settings', { loginLockThreshold: null, loginLockMinutes: null }, { master: true });
    }
  });

  test('updatePassword replaces an imported LeanCloud hash and drops its salt', async () => {
    const u = await signUp(h());
    await h().db.query(sql`UPDATE "_User" SET data = data || ${JSON.stringify({
      password: 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==',
      salt: 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2',
    })}::jsonb WHERE "objectId" = ${u.objectId}`);
    const res = await h().client.put(`/1.1/users/${u.objectId}/updatePassword`, { old_password: 'password', new_password: 'fresh' }, { session: u.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [row] = await h().db.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM "_User" WHERE "objectId" = ${u.objectId}`);
    assert.match(String(row.data.password), /^scrypt\$/);
    assert.equal(row.data.salt, undefined);
    assert.equal((await logIn(h(), { username: u.username, password: 'fresh' })).status, 200);
  });
});
