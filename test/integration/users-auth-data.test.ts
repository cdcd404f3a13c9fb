import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { setAuthDataVerifier } from '../../src/users/auth-data-verifier.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { assertError, signUp, uniqueName } from './harness/user-helpers.ts';

const anonymousId = () => randomUUID().replace(/-/g, '');
const github = (uid = uniqueName('gh')) => ({ uid, access_token: `tok-${uid}` });

async function userCount(h: Harness): Promise<number> {
  const [{ n }] = await h.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM "_User"`);
  return n;
}

function authLogin(h: Harness, authData: unknown, query?: Record<string, string>) {
  return h.client.request({ method: 'POST', url: '/1.1/users', body: { authData }, query });
}

forEachEngine('users: authData login, link, unlink, anonymous, unionid', (h) => {
  test('anonymous: 201 with a random 25-char username; the same id again is 200, same user, updatedAt moves', async () => {
    const id = anonymousId();
    const first = await authLogin(h(), { anonymous: { id } });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.username, /^[a-z0-9]{25}$/);
    assert.match(first.body.sessionToken, /^[a-z0-9]{25}$/);
    assert.deepEqual(first.body.authData, { anonymous: { id } });
    assert.match(String(first.headers.location), new RegExp(`/1.1/users/${first.body.objectId}$`));
    await new Promise((r) => setTimeout(r, 5));
    const again = await authLogin(h(), { anonymous: { id } });
    assert.equal(again.status, 200);
    assert.equal(again.body.objectId, first.body.objectId);
    assert.equal(again.body.sessionToken, first.body.sessionToken);
    assert.ok(again.body.updatedAt > first.body.updatedAt, 'updatedAt is bumped');
    assert.equal(again.headers.location, undefined);
  });

  test('generic platforms: uid and access_token required (250/251); existing account is 200', async () => {
    const gh = github();
    const first = await authLogin(h(), { github: gh });
    assert.equal(first.status, 201);
    assert.deepEqual(first.body.authData, { github: gh });
    const again = await authLogin(h(), { github: { ...gh, access_token: 'refreshed', expires_in: 7200 } });
    assert.equal(again.status, 200);
    assert.equal(again.body.objectId, first.body.objectId);
    assert.deepEqual(again.body.authData.github, { ...gh, access_token: 'refreshed', expires_in: 7200 }, 're-saved');
    const before = await userCount(h());
    assertError(await authLogin(h(), { github: { access_token: 't' } }), 400, 250);
    assertError(await authLogin(h(), { github: { uid: 'x' } }), 400, 251);
    assertError(await authLogin(h(), { lc_apple: { uid: 'a', identity_token: 'i' } }), 400, 251);
    assertError(await authLogin(h(), {}), 400, 250);
    assert.equal(await userCount(h()), before);
    const apple = await authLogin(h(), { lc_apple: { uid: uniqueName('apple'), identity_token: 'i', code: 'c' } });
    assert.equal(apple.status, 201);
  });

  test('operator injection in authData is 400 and creates nothing', async () => {
    const before = await userCount(h());
    for (const authData of [
      { github: { uid: { $ne: null }, access_token: 't' } },
      { github: { uid: 'u', access_token: { $ne: null } } },
      { anonymous: { id: { $gt: '' } } },
      { github: 'x' },
      { _github_unionid: { uid: 'x' } },
      { weixin: { openid: 'o', access_token: 't', unionid: { $ne: 1 }, platform: 'weixin' } },
    ]) {
      assertError(await authLogin(h(), authData), 400, 1);
    }
    assert.equal(await userCount(h()), before);
  });

  test('failOnNotExist=true: unknown account is 211 and nothing is created; a known one logs in', async () => {
    const before = await userCount(h());
    const gh = github();
    assertError(await authLogin(h(), { github: gh }, { failOnNotExist: 'true' }), 400, 211);
    assert.equal(await userCount(h()), before);
    const made = await authLogin(h(), { github: gh });
    assert.equal(made.status, 201);
    const known = await authLogin(h(), { github: gh }, { failOnNotExist: 'true' });
    assert.equal(known.status, 200);
    assert.equal(known.body.objectId, made.body.objectId);
  });

  test('10 parallel first logins with one platform account create exactly one user', async () => {
    const gh = github();
    const results = await Promise.all(Array.from({ length: 10 }, () => authLogin(h(), { github: gh })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201], JSON.stringify(results.map((r) => r.body)));
    assert.equal(new Set(results.map((r) => r.body.objectId)).size, 1);
    const rows = await h().db.query(sql`SELECT 1 FROM "_User" WHERE data->'authData'->'github'->>'uid' = ${gh.uid}`);
    assert.equal(rows.length, 1);
  });

  test('link merges per platform (208 when the account is another user\'s); unlink frees it', async () => {
    const u = await signUp(h(), { authData: { github: github() } });
    const other = await signUp(h());
    const wx = { uid: uniqueName('wx'), access_token: 't' };
    const linked = await h().client.request({ method: 'PUT', url: `/1.1/users/${u.objectId}`, body: { authData: { weixin: wx } }, session: u.sessionToken, query: { new: 'true' } });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    assert.deepEqual(Object.keys(linked.body.authData).sort(), ['github', 'weixin'], 'merged, not replaced');
    // Logging in with the linked account finds the user.
    assert.equal((await authLogin(h(), { weixin: wx })).body.objectId, u.objectId);
    assertError(await h().client.put(`/1.1/users/${other.objectId}`, { authData: { weixin: wx } }, { session: other.sessionToken }), 400, 208);
    assertError(await h().client.post('/1.1/users', { username: uniqueName(), password: 'x', authData: { weixin: wx } }), 400, 208);
    const unlinked = await h().client.put(`/1.1/users/${u.objectId}`, { 'authData.weixin': { __op: 'Delete' } }, { session: u.sessionToken });
    assert.equal(unlinked.status, 200);
    const me = await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken });
    assert.deepEqual(Object.keys(me.body.authData), ['github']);
    assert.equal((await h().client.put(`/1.1/users/${other.objectId}`, { authData: { weixin: wx } }, { session: other.sessionToken })).status, 200, 'free again');
    // Linking needs the user's own session.
    assertError(await h().client.put(`/1.1/users/${u.objectId}`, { authData: { qq: github() } }, { session: other.sessionToken }), 403, 206);
  });

  test('an anonymous user who links a platform stops being anonymous', async () => {
    const id = anonymousId();
    const anon = await authLogin(h(), { anonymous: { id } });
    const gh = github();
    const res = await h().client.request({ method: 'PUT', url: `/1.1/users/${anon.body.objectId}`, body: { authData: { github: gh } }, session: anon.body.sessionToken, query: { new: 'true' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.authData, { github: gh });
    // The anonymous id is released: logging in with it makes a new user.
    const again = await authLogin(h(), { anonymous: { id } });
    assert.equal(again.status, 201);
    assert.notEqual(again.body.objectId, anon.body.objectId);
  });

  test('an anonymous user who gets a username and password stops being anonymous and can log in', async () => {
    const id = anonymousId();
    const anon = await authLogin(h(), { anonymous: { id } });
    const username = uniqueName('upgraded');
    const res = await h().client.put(`/1.1/classes/_User/${anon.body.objectId}`, { username, password: 'pw' }, { session: anon.body.sessionToken });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const login = await h().client.post('/1.1/login', { username, password: 'pw' });
    assert.equal(login.status, 200);
    assert.equal(login.body.objectId, anon.body.objectId);
    assert.deepEqual(login.body.authData, {});
    assert.equal((await authLogin(h(), { anonymous: { id } })).status, 201, 'anonymous id released');
  });

  test('unionid: main_account claims _<platform>_unionid; another platform with that unionid finds the same user', async () => {
    const unionid = uniqueName('union');
    const app1 = { openid: uniqueName('o'), access_token: 't1', unionid, platform: 'weixin', main_account: true };
    const first = await authLogin(h(), { wxapp1: app1 });
    assert.equal(first.status, 201);
    assert.deepEqual(first.body.authData._weixin_unionid, { uid: unionid });
    const app2 = { openid: uniqueName('o'), access_token: 't2', unionid, platform: 'weixin', main_account: false };
    const second = await authLogin(h(), { wxapp2: app2 });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.objectId, first.body.objectId);
    assert.deepEqual(Object.keys(second.body.authData).sort(), ['_weixin_unionid', 'wxapp1', 'wxapp2']);
    // The merged platform now finds the user directly too.
    assert.equal((await authLogin(h(), { wxapp2: app2 }, { failOnNotExist: 'true' })).body.objectId, first.body.objectId);
  });

  test('unionid without main_account on a new user claims nothing', async () => {
    const unionid = uniqueName('union');
    const res = await authLogin(h(), { wxapp3: { openid: uniqueName('o'), access_token: 't', unionid, platform: 'weixin' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.authData._weixin_unionid, undefined);
    const other = await authLogin(h(), { wxapp4: { openid: uniqueName('o'), access_token: 't', unionid, platform: 'weixin' } });
    assert.equal(other.status, 201, 'not found through an unclaimed unionid');
    assert.notEqual(other.body.objectId, res.body.objectId);
  });

  test('authData is shown to the user itself and the master key, not to others', async () => {
    const u = await signUp(h(), { authData: { github: github() } });
    const other = await signUp(h());
    assert.equal((await h().client.get(`/1.1/users/${u.objectId}`, undefined, { session: other.sessionToken })).body.authData, undefined);
    assert.equal((await h().client.get(`/1.1/users/${u.objectId}`)).body.authData, undefined);
    assert.ok((await h().client.get(`/1.1/users/${u.objectId}`, undefined, { session: u.sessionToken })).body.authData.github);
    assert.ok((await h().client.get(`/1.1/users/${u.objectId}`, undefined, { master: true })).body.authData.github);
  });

  test('the master key reads authData on every path (find, include, scan); nobody else does', async () => {
    const u = await signUp(h(), { authData: { github: github() } });
    const found = await h().client.get('/1.1/users', { where: { objectId: u.objectId } }, { master: true });
    assert.ok(found.body.results[0].authData.github, JSON.stringify(found.body));
    for (const k of ['password', 'salt', 'sessionToken']) assert.equal(found.body.results[0][k], undefined, k);
    const post = await h().client.post('/1.1/classes/AuthorPost', { author: { __type: 'Pointer', className: '_User', objectId: u.objectId } });
    const withMaster = await h().client.get(`/1.1/classes/AuthorPost/${post.body.objectId}`, { include: 'author' }, { master: true });
    assert.ok(withMaster.body.author.authData.github);
    const withoutMaster = await h().client.get(`/1.1/classes/AuthorPost/${post.body.objectId}`, { include: 'author' });
    assert.equal(withoutMaster.body.author.authData, undefined);
    const scanned = await h().client.get('/1.1/scan/classes/_User', { where: { objectId: u.objectId } }, { master: true });
    assert.equal(scanned.status, 200, JSON.stringify(scanned.body));
    assert.ok(scanned.body.results[0].authData.github);
    assert.equal(scanned.body.results[0].sessionToken, undefined);
  });

  test('platform token verification is pluggable: a registered verifier can refuse (251, nothing written)', async () => {
    setAuthDataVerifier(h().app, 'strictgame', {
      async verify(entry) {
        return entry.data.access_token === `good-${entry.uid}`;
      },
    });
    try {
      const before = await userCount(h());
      assertError(await authLogin(h(), { strictgame: { uid: 'p1', access_token: 'forged' } }), 400, 251);
      assert.equal(await userCount(h()), before);
      assert.equal((await authLogin(h(), { strictgame: { uid: 'p1', access_token: 'good-p1' } })).status, 201);
      const u = await signUp(h());
      assertError(await h().client.put(`/1.1/users/${u.objectId}`, { authData: { strictgame: { uid: 'p2', access_token: 'x' } } }, { session: u.sessionToken }), 400, 251);
      // Other platforms stay unverified (the default).
      assert.equal((await authLogin(h(), { othergame: { uid: 'p1', access_token: 'anything' } })).status, 201);
    } finally {
      setAuthDataVerifier(h().app, 'strictgame', undefined);
    }
  });
});
