/**
 * The security checklist (/work/shared/security-checklist.md) on the paths added after the first
 * security suite: CQL, leaderboards, files, statuses, and the /1.1/batch path into each of them.
 * docs/security.md ("Checklist classes on newer paths") maps each (path, class) pair to its test,
 * here or in the file that already covered it. The pattern: Alice owns private data, Bob (a
 * signed-in user) and anonymous callers try the newer paths to read or change it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CloudCode } from '../../src/cloud/cloud-code.ts';
import { createLogger } from '../../src/log.ts';
import { testCloudOptions } from './harness/engine-app.ts';
import { startFakeEngine, type FakeEngine } from './harness/fake-engine.ts';
import { engines, forEachEngine, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';
import { closeLiveQuerySdk, liveQuerySdk, recordEvents, type AVNamespace } from './harness/livequery-sdk.ts';
import { assertError, signUp, type SignedUpUser } from './harness/user-helpers.ts';

const ptr = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });

forEachEngine('security on newer paths', (h) => {
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let priv = '';
  before(async () => {
    const c = h().client;
    alice = await signUp(h(), { email: `alice${Date.now()}@example.com`, mobilePhoneNumber: '+8613800000001' });
    bob = await signUp(h());
    const p = await c.post('/1.1/classes/NewerPrivate', { secret: 's3cret', n: 1, ACL: { [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken });
    assert.equal(p.status, 201, JSON.stringify(p.body));
    priv = p.body.objectId;
    assert.equal((await c.post('/1.1/classes/NewerPublic', { k: 's3cret', p: ptr('NewerPrivate', priv), u: ptr('_User', alice.objectId) }, { session: bob.sessionToken })).status, 201);
  });

  const cql = (statement: string, extra: { session?: string; master?: boolean } = {}) => h().client.get('/1.1/cloudQuery', { cql: statement }, extra);

  test('CQL: private objects are absent from results, counts, sub-queries and include', async () => {
    const s = { session: bob.sessionToken };
    for (const statement of [
      'select * from NewerPrivate',
      "select * from NewerPrivate where secret = 's3cret' or n = 1",
      "select * from NewerPrivate where secret regexp '^s'",
      "select * from NewerPrivate where secret like 's%'",
    ]) {
      const res = await cql(statement, s);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.results, [], statement);
    }
    assert.equal((await cql('select count(*) from NewerPrivate', s)).body.count, 0);
    const inner = await cql("select * from NewerPublic where p in (select * from NewerPrivate where secret = 's3cret')", s);
    assert.deepEqual(inner.body.results, []);
    const included = await cql('select include p, * from NewerPublic', s);
    assert.deepEqual(included.body.results[0].p, ptr('NewerPrivate', priv));
    assert.equal((await cql('select include p, * from NewerPublic', { session: alice.sessionToken })).body.results[0].p.secret, 's3cret');
    // The same through a batch item.
    const batch = await h().client.post('/1.1/batch', { requests: [{ method: 'GET', path: `/1.1/cloudQuery?cql=${encodeURIComponent('select * from NewerPrivate')}` }] }, s);
    assert.deepEqual(batch.body[0], { success: { results: [], className: 'NewerPrivate' } });
  });

  test('CQL: hidden and contact fields of _User can be neither selected, queried, sorted on nor reached by include', async () => {
    const c = h().client;
    await c.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }, { master: true });
    try {
      const s = { session: bob.sessionToken };
      const listed = await cql('select username, email, mobilePhoneNumber, password, salt, sessionToken, authData from _User', s);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const a = listed.body.results.find((u: { objectId: string }) => u.objectId === alice.objectId);
      assert.ok(a, 'alice is listed');
      assert.deepEqual(Object.keys(a).filter((k) => ['email', 'mobilePhoneNumber', 'password', 'salt', 'sessionToken', 'authData'].includes(k)), []);
      for (const statement of [
        `select * from _User where sessionToken regexp '^${alice.sessionToken.slice(0, 2)}'`,
        "select * from _User where email like 'alice%'",
        "select * from _User where username = 'x' or password is exists",
        'select * from _User where authData.weixin.openid is exists',
        'select * from _User order by email',
        'select * from _User order by -mobilePhoneNumber',
        'select * from NewerPublic where u in (select * from _User where salt is exists)',
      ]) {
        assertError(await cql(statement, s), 400, 102);
      }
      const batch = await c.post('/1.1/batch', { requests: [
        { method: 'GET', path: `/1.1/cloudQuery?cql=${encodeURIComponent('select * from _User order by email')}` },
        { method: 'GET', path: `/1.1/cloudQuery?cql=${encodeURIComponent("select * from _User where sessionToken like 'a%'")}` },
      ] }, s);
      assert.deepEqual(batch.body.map((i: { error?: { code: number } }) => i.error?.code), [102, 102], JSON.stringify(batch.body));
      const inc = await cql('select include u, * from NewerPublic', s);
      assert.equal(inc.status, 200);
      assert.equal(inc.body.results[0].u.email, undefined);
      assert.equal(inc.body.results[0].u.sessionToken, undefined);
    } finally {
      await c.put('/1.1/larder/classes/_User/permissions', { find: { users: [], roles: [] } }, { master: true });
    }
  });

  test('CQL: a catastrophic regexp or like answers quickly; an invalid one is 102, never a 500', async () => {
    const c = h().client;
    await c.post('/1.1/classes/NewerRegex', { s: `${'a'.repeat(40)}!` });
    for (const statement of ["select * from NewerRegex where s regexp '(a+)+$'", "select * from NewerRegex where s regexp '^(a|a)*$'", "select * from NewerRegex where s like '%(a+)+%'", "select * from NewerRegex where s like '%\\\\%'"]) {
      const t0 = Date.now();
      const res = await cql(statement);
      assert.ok(res.status === 200 || res.body?.code === 102 || res.body?.code === 300, `${statement}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.ok(Date.now() - t0 < 5000, statement);
    }
    for (const bad of ["select * from NewerRegex where s regexp '[z-a]'", "select * from NewerRegex where s regexp '(?<'", "select * from NewerRegex where s regexp '\\\\'"]) {
      const res = await cql(bad);
      assert.equal(res.status, 400, `${bad}: ${JSON.stringify(res.body)}`);
      assert.equal(typeof res.body.code, 'number');
    }
  });

  test('CQL: injection through values and placeholders stays a value; names are checked', async () => {
    const c = h().client;
    await c.post('/1.1/classes/NewerInj', { s: "it's" });
    const quoted = await cql("select * from NewerInj where s = 'it''s' or s = '\\' OR 1=1 --'");
    assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
    const viaPlaceholder = await c.get('/1.1/cloudQuery', { cql: 'select * from NewerInj where s = ?', pvalues: JSON.stringify([{ $ne: 'x' }]) });
    assert.ok(viaPlaceholder.status === 400 || (viaPlaceholder.status === 200 && viaPlaceholder.body.results.length === 0), JSON.stringify(viaPlaceholder.body));
    const regexPlaceholder = await c.get('/1.1/cloudQuery', { cql: 'select * from NewerInj where s = ?', pvalues: JSON.stringify([{ $regex: '.*' }]) });
    assert.ok(regexPlaceholder.status === 400 || (regexPlaceholder.status === 200 && regexPlaceholder.body.results.length === 0), JSON.stringify(regexPlaceholder.body));
    for (const statement of ['select * from `NewerInj"; DROP TABLE x; --`', 'select * from NewerInj where `s"` = 1', 'select * from NewerInj order by `s; drop`', 'select `constructor`, * from NewerInj where `__proto__.x` = 1']) {
      const res = await cql(statement);
      assert.ok(res.status === 400 || res.status === 200, `${statement}: ${res.status}`);
      assert.equal(typeof res.body.code === 'number' || Array.isArray(res.body.results), true);
    }
    assert.equal((await c.get('/1.1/classes/NewerInj')).body.results.length, 1);
  });
  test('complexity and prototype keys on the newer paths: bounded with a clear error, nothing polluted', async () => {
    const c = h().client;
    const raw = (url: string, payload: string, master = false) => c.request({ method: 'POST', url, payload, master, headers: { 'content-type': 'application/json' } });
    const deep = (n: number) => '{"$and":['.repeat(n) + '{"a":1}' + ']}'.repeat(n);
    const cases: [string, Promise<{ status: number; body: { code?: number } }>, number][] = [
      ['CQL nested parentheses', cql(`select * from NewerPublic where ${'('.repeat(200)}k = 1${')'.repeat(200)}`), 300],
      ['CQL longer than the limit', cql(`select * from NewerPublic where ${Array.from({ length: 600 }, () => 'k = 1').join(' or ')}`), 300],
      ['CQL nested sub-queries', cql(`select * from NewerPublic where k in ${'(select k from NewerPublic where k in '.repeat(30)}(1)${')'.repeat(30)}`), 102],
      ['LiveQuery deep where', raw('/1.1/LiveQuery/subscribe', `{"query":{"className":"NewerPublic","where":${deep(200)}},"id":"newer-deep"}`), 107],
      ['inbox deep where', c.get('/1.1/subscribe/statuses', { where: deep(200) }, { session: bob.sessionToken }), 107],
      ['fileTokens metaData __proto__', raw('/1.1/fileTokens', '{"name":"a.txt","metaData":{"__proto__":{"polluted":1}}}'), 121],
      ['external file metaData __proto__', raw('/1.1/files', '{"name":"a.txt","url":"https://example.com/a","metaData":{"__proto__":{"polluted":1}}}'), 121],
      ['status data __proto__', raw('/1.1/statuses', '{"data":{"__proto__":{"polluted":1}},"query":{"className":"_User","where":{}}}', true), 105],
      ['LiveQuery where __proto__', raw('/1.1/LiveQuery/subscribe', '{"query":{"className":"NewerPublic","where":{"__proto__":{"polluted":1}}},"id":"newer-proto"}'), 105],
    ];
    for (const [what, pending, code] of cases) {
      const res = await pending;
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code, `${what}: ${JSON.stringify(res.body)}`);
    }
    // Leaderboards named like Object.prototype members are ordinary names.
    assertError(await c.get('/1.1/leaderboard/leaderboards/toString'), 404, 1);
    assertError(await c.get('/1.1/leaderboard/leaderboards/constructor/ranks'), 404, 1);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

forEachEngine('security on newer paths: leaderboards, files, statuses, batch', (h) => {
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let base = '';
  const M = { master: true } as const;
  before(async () => {
    alice = await signUp(h(), { email: `alice${Date.now()}@example.com`, mobilePhoneNumber: '+8613800000002' });
    bob = await signUp(h());
    base = await h().listen();
    const c = h().client;
    assert.equal((await c.post('/1.1/leaderboard/leaderboards', { statisticName: 'newerScore' }, M)).status, 200);
    assert.equal((await c.post('/1.1/leaderboard/users/self/statistics', [{ statisticName: 'newerScore', statisticValue: 10 }], { session: alice.sessionToken })).status, 200);
    assert.equal((await c.post('/1.1/classes/NewerLbRef', { u: ptr('_User', alice.objectId) })).status, 201);
  });

  test('leaderboards: rankings never show hidden or contact fields of other users, and obey the user row ACL', async () => {
    const c = h().client;
    const keys = 'username,email,mobilePhoneNumber,password,salt,sessionToken,authData';
    for (const path of ['/1.1/leaderboard/leaderboards/newerScore/ranks', `/1.1/leaderboard/leaderboards/newerScore/ranks/${alice.objectId}`]) {
      for (const opts of [{ session: bob.sessionToken }, {}]) {
        const res = await c.get(path, { selectUserKeys: keys, includeUser: 'email' }, opts);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const user = res.body.results.find((r: { user: { objectId: string } }) => r.user.objectId === alice.objectId)?.user;
        assert.ok(user, 'alice is ranked');
        assert.equal(user.username, alice.username);
        for (const k of keys.split(',').slice(1)) assert.equal(user[k], undefined, `${k} of another user`);
      }
    }
    const own = await c.get('/1.1/leaderboard/leaderboards/newerScore/ranks', { selectUserKeys: 'email,sessionToken' }, { session: alice.sessionToken });
    assert.equal(own.body.results[0].user.sessionToken, undefined, 'not even its own token');
    // A user row others may not read shows as a bare pointer.
    await c.put(`/1.1/users/${alice.objectId}`, { ACL: { [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken });
    try {
      const res = await c.get('/1.1/leaderboard/leaderboards/newerScore/ranks', { selectUserKeys: 'username' }, { session: bob.sessionToken });
      assert.deepEqual(res.body.results[0].user, ptr('_User', alice.objectId));
    } finally {
      await c.put(`/1.1/users/${alice.objectId}`, { ACL: { '*': { read: true }, [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken });
    }
    assertError(await c.get('/1.1/leaderboard/leaderboards/newerScore/ranks', { selectUserKeys: 'a"b' }), 400, 105);
    // With _User closed for get, as an include of a _User pointer would be, only pointers show.
    const closed = { users: [], roles: [] };
    assert.equal((await c.put('/1.1/larder/classes/_User/permissions', { get: closed }, M)).status, 200);
    try {
      const res = await c.get('/1.1/leaderboard/leaderboards/newerScore/ranks', { selectUserKeys: 'username' }, { session: bob.sessionToken });
      const viaInclude = await c.get('/1.1/classes/NewerLbRef', { include: 'u' }, { session: bob.sessionToken });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.results[0].user, ptr('_User', alice.objectId), `include gives ${JSON.stringify(viaInclude.body.results?.[0]?.u)}`);
    } finally {
      await c.put('/1.1/larder/classes/_User/permissions', { get: { '*': true } }, M);
    }
  });

  test("leaderboards: another user's statistics cannot be changed or deleted, also not through a batch; management is master-only", async () => {
    const c = h().client;
    const stat = [{ statisticName: 'newerScore', statisticValue: 999 }];
    const s = { session: bob.sessionToken };
    assertError(await c.post(`/1.1/leaderboard/users/${alice.objectId}/statistics`, stat, s), 403, 206);
    assertError(await c.delete(`/1.1/leaderboard/users/${alice.objectId}/statistics`, { ...s, query: { statistics: 'newerScore' } }), 403, 206);
    assertError(await c.delete(`/1.1/leaderboard/users/${alice.objectId}/statistics`, { query: { statistics: 'newerScore' } }), 403, 206);
    assertError(await c.post('/1.1/leaderboard/users/self/statistics', stat, { ...s, query: { overwrite: 1 } }), 403, 1);
    for (const id of ['{"$ne":"x"}', `${alice.objectId},${bob.objectId}`, '../self']) {
      const res = await c.post(`/1.1/leaderboard/users/${encodeURIComponent(id)}/statistics`, stat, s);
      assert.ok(res.status >= 400 && res.status < 500 && typeof res.body.code === 'number', `${id}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const batch = await c.post('/1.1/batch', { requests: [
      { method: 'POST', path: `/1.1/leaderboard/users/${alice.objectId}/statistics`, body: stat },
      { method: 'DELETE', path: `/1.1/leaderboard/users/${alice.objectId}/statistics?statistics=newerScore` },
      { method: 'POST', path: '/1.1/leaderboard/users/self/statistics?overwrite=1', body: stat },
      { method: 'PUT', path: '/1.1/leaderboard/leaderboards/newerScore/incrementVersion' },
      { method: 'DELETE', path: '/1.1/leaderboard/leaderboards/newerScore' },
      { method: 'GET', path: '/1.1/leaderboard/leaderboards/newerScore/archives' },
      { method: 'PUT', path: '/1.1/leaderboard/leaderboards/newerScore', body: { updateStrategy: 'last' } },
    ] }, s);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    for (const item of batch.body) assert.ok(item.error && [1, 206].includes(item.error.code), JSON.stringify(item));
    const board = await c.get('/1.1/leaderboard/leaderboards/newerScore');
    assert.deepEqual([board.body.version, board.body.updateStrategy], [0, 'better']);
    const stats = await c.get(`/1.1/leaderboard/users/${alice.objectId}/statistics`);
    assert.deepEqual(stats.body.results.map((r: { statisticValue: number }) => r.statisticValue), [10]);
  });

  const api = async (method: string, path: string, body?: unknown, session?: string, master = false) => {
    const headers: Record<string, string> = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': master ? `${TEST_KEYS.masterKey},master` : TEST_KEYS.appKey, 'content-type': 'application/json' };
    if (session) headers['x-lc-session'] = session;
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  /** Uploads through fileTokens + PUT as the SDKs do; returns the record id and url. */
  const upload = async (session: string | undefined, extra: Record<string, unknown>, bytes = 'hello') => {
    const t = await api('POST', '/1.1/fileTokens', { name: 'a.txt', mime_type: 'text/plain', ...extra }, session);
    assert.equal(t.status, 200, JSON.stringify(t.body));
    const put = await fetch(t.body.upload_url, { method: 'PUT', body: bytes, headers: { 'content-type': 'text/plain' } });
    assert.equal(put.status, 200);
    assert.equal((await api('POST', '/1.1/fileCallback', { token: t.body.token, result: true })).status, 200);
    return { id: t.body.objectId as string, url: t.body.url as string };
  };

  test('files: owner, size and _checksum are the server\'s (fileTokens and external files); a client cannot spoof them', async () => {
    const c = h().client;
    const up = await upload(bob.sessionToken, { metaData: { owner: alice.objectId, size: 1, _checksum: '0'.repeat(32), mine: 'kept' } });
    const rec = await c.get(`/1.1/files/${up.id}`, undefined, M);
    assert.equal(rec.body.metaData.owner, bob.objectId);
    assert.equal(rec.body.metaData.size, 5);
    assert.equal(rec.body.metaData._checksum, '5d41402abc4b2a76b9719d911017c592');
    assert.equal(rec.body.metaData.mine, 'kept');
    const external = await c.post('/1.1/files', { name: 'x.png', url: 'https://example.com/x.png', metaData: { owner: alice.objectId, __source: 'mine' } }, { session: bob.sessionToken });
    assert.equal(external.status, 201, JSON.stringify(external.body));
    const ext = await c.get(`/1.1/files/${external.body.objectId}`, undefined, M);
    assert.deepEqual([ext.body.metaData.owner, ext.body.metaData.__source], [bob.objectId, 'external']);
    const anon = await c.post('/1.1/files', { name: 'y.png', url: 'https://example.com/y.png', metaData: { owner: alice.objectId } });
    assert.equal((await c.get(`/1.1/files/${anon.body.objectId}`, undefined, M)).body.metaData.owner, 'unknown');
    // The master key may name the owner, as on the upload path.
    const named = await c.post('/1.1/files', { name: 'z.png', url: 'https://example.com/z.png', metaData: { owner: alice.objectId } }, M);
    assert.equal((await c.get(`/1.1/files/${named.body.objectId}`, undefined, M)).body.metaData.owner, alice.objectId);
  });

  test("files: another user's private file cannot be read, changed or deleted on any path (also batch); records are never edited", async () => {
    const c = h().client;
    const up = await upload(alice.sessionToken, { ACL: { [alice.objectId]: { read: true, write: true } } });
    const s = { session: bob.sessionToken };
    // As for a file that does not exist (built-in classes answer 211 for both).
    const missing = await c.get('/1.1/files/000000000000000000000000', undefined, s);
    const hidden = await c.get(`/1.1/files/${up.id}`, undefined, s);
    assert.deepEqual([hidden.status, hidden.body.code], [missing.status, missing.body.code]);
    assertError(hidden, 400, 211);
    assert.deepEqual((await c.get('/1.1/classes/files', { where: { objectId: up.id } }, s)).body.results, []);
    assert.deepEqual((await c.get('/1.1/classes/_File', { where: { objectId: up.id } }, s)).body.results, []);
    assert.deepEqual((await c.get('/1.1/cloudQuery', { cql: `select * from _File where objectId = '${up.id}'` }, s)).body.results, []);
    for (const path of [`/1.1/files/${up.id}`, `/1.1/classes/files/${up.id}`, `/1.1/classes/_File/${up.id}`]) {
      const res = await c.delete(path, s);
      assert.equal(res.status, 403, `${path}: ${JSON.stringify(res.body)}`);
    }
    for (const body of [{ url: 'javascript:alert(1)' }, { key: 'other/key.txt' }, { metaData: { size: 1, owner: bob.objectId } }, { ACL: { '*': { read: true, write: true } } }]) {
      for (const path of [`/1.1/classes/_File/${up.id}`, `/1.1/classes/files/${up.id}`]) {
        for (const opts of [s, M]) {
          const res = await c.put(path, body, opts);
          assert.equal(res.status, 403, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        }
      }
    }
    assertError(await c.post('/1.1/classes/_File', { name: 'n', url: 'https://example.com/n' }, s), 403, 1);
    const batch = await c.post('/1.1/batch', { requests: [
      { method: 'DELETE', path: `/1.1/files/${up.id}` },
      { method: 'DELETE', path: `/1.1/classes/_File/${up.id}` },
      { method: 'PUT', path: `/1.1/classes/_File/${up.id}`, body: { url: 'javascript:alert(1)' } },
      { method: 'GET', path: `/1.1/files/${up.id}` },
    ] }, s);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    assert.deepEqual(batch.body.slice(0, 3).map((i: { error?: { code: number } }) => i.error?.code), [1, 1, 1]);
    assert.equal(batch.body[3].error?.code, 211);
    const saved = await c.post('/1.1/batch/save', { requests: [{ method: 'PUT', path: `/1.1/classes/_File/${up.id}`, body: { __internalId: 'f', url: 'javascript:alert(1)' } }] }, s);
    assert.ok(saved.status === 403 || saved.status === 400, JSON.stringify(saved.body));
    const rec = await c.get(`/1.1/files/${up.id}`, undefined, { session: alice.sessionToken });
    assert.deepEqual([rec.body.url, rec.body.metaData.size], [up.url, 5]);
    assert.equal((await fetch(up.url)).status, 200, 'the bytes are still served');
  });

  test('files: class permissions of _File apply to fileTokens, direct uploads, external files, reads and deletes', async () => {
    const c = h().client;
    const up = await upload(alice.sessionToken, {});
    const closed = { users: [], roles: [] };
    assert.equal((await c.put('/1.1/larder/classes/_File/permissions', { create: closed, delete: closed, get: closed, find: closed }, M)).status, 200);
    try {
      const s = { session: alice.sessionToken };
      assertError(await c.post('/1.1/fileTokens', { name: 'a.txt' }, s), 403, 1);
      assertError(await c.post('/1.1/files', { name: 'x.png', url: 'https://example.com/x.png' }, s), 403, 1);
      const direct = await fetch(`${base}/1.1/files/direct.txt`, { method: 'POST', body: 'x', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'x-lc-session': alice.sessionToken, 'content-type': 'text/plain' } });
      assert.equal(direct.status, 403);
      assertError(await c.get(`/1.1/files/${up.id}`, undefined, s), 403, 1);
      assertError(await c.get('/1.1/classes/files', undefined, s), 403, 1);
      assertError(await c.delete(`/1.1/files/${up.id}`, s), 403, 1);
      assert.equal((await fetch(up.url)).status, 200);
    } finally {
      await c.put('/1.1/larder/classes/_File/permissions', { create: { '*': true }, delete: { '*': true }, get: { '*': true }, find: { '*': true } }, M);
    }
  });

  test('files: keys, prefixes and names never leave the store; served names and types cannot carry script', async () => {
    const c = h().client;
    for (const prefix of ['../x', '/abs', 'a/../../b', 'a\\b', '%2e%2e/x', 'a/./b', '']) {
      const res = await api('POST', '/1.1/fileTokens', { name: 'a.txt', prefix }, bob.sessionToken);
      assert.ok(res.status === 400 || (res.status === 200 && !res.body.key.split('/').some((p: string) => p === '..' || p === '.')), `${prefix}: ${JSON.stringify(res.body)}`);
    }
    assertError(await c.post('/1.1/fileTokens', { name: 'a.txt', key: 'chosen/key.txt' }, { session: bob.sessionToken }), 403, 1);
    const evil = await upload(bob.sessionToken, { name: '"><script>alert(1)</script>.html', mime_type: 'text/html' }, '<script>alert(1)</script>');
    const served = await fetch(evil.url);
    assert.match(served.headers.get('content-disposition') ?? '', /^attachment;/);
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(served.headers.get('content-disposition') ?? '', /filename="[^"]*"[^;]/, 'the quoted name cannot be closed early');
    for (const path of ['/files/..%2f..%2fetc%2fpasswd', '/files/%2e%2e/%2e%2e/package.json']) {
      const res = await fetch(base + path);
      assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
      assert.doesNotMatch(await res.text(), /"name"\s*:\s*"larder"|root:/);
    }
  });

  test("statuses: another user's inbox, counts and statuses are out of reach, also through a batch", async () => {
    const c = h().client;
    const owner = JSON.stringify(ptr('_User', alice.objectId));
    const s = { session: bob.sessionToken };
    const sent = await c.post('/1.1/statuses', { data: { text: 'private note' }, inboxType: 'private', query: { className: '_User', where: { objectId: alice.objectId } } }, M);
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    for (const res of [
      await c.get('/1.1/subscribe/statuses', { owner, inboxType: 'private' }, s),
      await c.get('/1.1/subscribe/statuses', { owner: alice.objectId }, s),
      await c.get('/1.1/subscribe/statuses/count', { owner }, s),
      await c.post('/1.1/subscribe/statuses/resetUnreadCount', { owner }, s),
      await c.delete('/1.1/subscribe/statuses/inbox', { ...s, query: { owner, messageId: 1 } }),
    ]) assertError(res, 403, 1);
    for (const owner2 of [{ $ne: 'x' }, { __type: 'Pointer', className: '_User', objectId: { $ne: 'x' } }]) {
      const res = await c.get('/1.1/subscribe/statuses', { owner: JSON.stringify(owner2) }, s);
      assert.ok(res.status === 200 || res.status === 400, JSON.stringify(res.body));
      if (res.status === 200) assert.deepEqual(res.body.results, [], 'only the caller\'s own inbox');
    }
    assertError(await c.get('/1.1/subscribe/statuses', { owner }), 403, 1);
    const batch = await c.post('/1.1/batch', { requests: [
      { method: 'GET', path: `/1.1/subscribe/statuses?owner=${encodeURIComponent(owner)}` },
      { method: 'GET', path: `/1.1/subscribe/statuses/count?owner=${alice.objectId}` },
      { method: 'DELETE', path: `/1.1/statuses/${sent.body.objectId}` },
    ] }, s);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    for (const item of batch.body) assert.ok(item.error, JSON.stringify(item));
    assert.equal((await c.get('/1.1/subscribe/statuses/count', { owner, inboxType: 'private' }, { session: alice.sessionToken })).body.total, 1);
    // A status is an object of _Status with its own ACL (docs/statuses.md): one sent with an ACL
    // naming only the recipient is out of reach by id, by query and by CQL.
    const acl = { [alice.objectId]: { read: true } };
    const guarded = await c.post('/1.1/statuses', { data: { text: 'acl note', ACL: acl }, inboxType: 'private', query: { className: '_User', where: { objectId: alice.objectId } } }, M);
    assert.equal(guarded.status, 201, JSON.stringify(guarded.body));
    const direct = await c.get(`/1.1/statuses/${guarded.body.objectId}`, undefined, s);
    assert.ok(direct.status >= 400 || Object.keys(direct.body).length === 0, `a private status by id: ${JSON.stringify(direct.body)}`);
    for (const res of [await c.get('/1.1/statuses', { where: { text: 'acl note' } }, s), await c.get('/1.1/classes/_Status', { where: { text: 'acl note' } }, s), await c.get('/1.1/cloudQuery', { cql: "select * from _Status where text = 'acl note'" }, s)]) {
      assert.deepEqual(res.body.results, [], 'by query');
    }
    const inbox = await c.get('/1.1/subscribe/statuses', { owner, inboxType: 'private' }, { session: alice.sessionToken });
    assert.deepEqual(inbox.body.results.map((r: { text: string }) => r.text).sort(), ['acl note', 'private note']);
  });
});

forEachEngine('security on newer paths: LiveQuery', (h) => {
  let AV: AVNamespace;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  before(async () => {
    AV = liveQuerySdk(await h().listen());
    alice = await signUp(h(), { email: `alq${Date.now()}@example.com` });
    bob = await signUp(h());
    const set = await h().client.put('/1.1/larder/settings', { clientInvisibleFields: { _User: ['email', 'mobilePhoneNumber'], NewerLq: ['secret'] } }, { master: true });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal((await h().client.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }, { master: true })).status, 200);
  });
  after(() => closeLiveQuerySdk(AV));

  test('subscribe: hidden and invisible fields cannot be named in where ($or/$and, dot-notation, operators)', async () => {
    const c = h().client;
    let n = 0;
    const sub = (className: string, where: unknown) => c.post('/1.1/LiveQuery/subscribe', { query: { className, where }, id: `newer-${n++}` }, { session: bob.sessionToken });
    for (const [className, where] of [
      ['_User', { $or: [{ username: 'x' }, { sessionToken: { $regex: '^a' } }] }],
      ['_User', { $and: [{ password: { $exists: true } }] }],
      ['_User', { 'authData.weixin.openid': { $exists: true } }],
      ['_User', { email: { $regex: '^alq' } }],
      ['_User', { $nor: [{ mobilePhoneNumber: { $gt: '' } }] }],
      ['NewerLq', { secret: { $regex: '^s' } }],
      ['NewerLq', { $or: [{ tag: 't' }, { 'secret.x': 1 }] }],
    ] as const) {
      const res = await sub(className, where);
      assert.equal(res.status, 400, `${JSON.stringify(where)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 102, JSON.stringify(res.body));
    }
    assert.equal((await sub('NewerLq', { tag: 't' })).status, 200);
  });

  test('events: client-invisible fields never travel, in objects or updatedKeys; unreadable objects are never pushed', async () => {
    const c = h().client;
    await AV.User.become(bob.sessionToken);
    try {
      const live = await new AV.Query('NewerLq').equalTo('tag', 't').subscribe();
      const rec = recordEvents(live);
      const created = await c.post('/1.1/classes/NewerLq', { tag: 't', secret: 's3cret', n: 1 }, { session: alice.sessionToken });
      const e1 = await rec.next((e) => e.op === 'create');
      assert.deepEqual([e1.object.n, e1.object.secret], [1, undefined]);
      await c.put(`/1.1/classes/NewerLq/${created.body.objectId}`, { secret: 'other', n: 2 }, { session: alice.sessionToken });
      const e2 = await rec.next((e) => e.op === 'update');
      assert.deepEqual([e2.object.n, e2.object.secret], [2, undefined]);
      assert.ok(!(e2.updatedKeys ?? []).includes('secret'), `updatedKeys: ${JSON.stringify(e2.updatedKeys)}`);
      await c.post('/1.1/classes/NewerLq', { tag: 't', n: 3, ACL: { [alice.objectId]: { read: true, write: true } } }, { session: alice.sessionToken });
      await c.post('/1.1/classes/NewerLq', { tag: 't', n: 4 }, { session: alice.sessionToken });
      assert.equal((await rec.next((e) => e.op === 'create')).object.n, 4);
      assert.deepEqual(rec.events.filter((e) => e.object.n === 3), [], 'the private object was not pushed');
      await live.unsubscribe();

      const users = await new AV.Query('_User').equalTo('objectId', alice.objectId).subscribe();
      const urec = recordEvents(users);
      await c.put(`/1.1/users/${alice.objectId}`, { email: `changed${Date.now()}@example.com`, nick: 'a' }, { session: alice.sessionToken });
      const u = await urec.next((e) => e.op === 'update');
      assert.deepEqual([u.object.nick, u.object.email, u.object.sessionToken], ['a', undefined, undefined]);
      assert.ok(!(u.updatedKeys ?? []).includes('email'), `updatedKeys: ${JSON.stringify(u.updatedKeys)}`);
      await users.unsubscribe();
    } finally {
      await AV.User.logOut();
    }
  });
});

for (const engine of engines()) {
  describe(`security on newer paths: cloud code [${engine}]`, () => {
    let fake: FakeEngine;
    let h: Harness & { stop(): Promise<void> };
    before(async () => {
      fake = await startFakeEngine('production', ['echo', '__before_save_for_Hooked', '__after_save_for_Hooked']);
      const cloud = new CloudCode(testCloudOptions(fake.url), createLogger('silent'));
      h = await startHarness(engine, { cloud });
      await cloud.refresh(h.app);
    });
    after(async () => {
      await h?.stop();
      await fake?.close();
    });

    test('clients reach only one-segment function names: hook paths and _ops never reach the engine, on any route or batch', async () => {
      const before = fake.calls.length;
      const user = await signUp(h);
      for (const path of [
        '/1.1/functions/Hooked/beforeSave', '/1.1/functions/_ops/metadatas', '/1.1/call/_ops/metadatas', '/1/functions/Hooked/afterSave',
        '/1.1/functions/Hooked%2FbeforeSave', '/1.1/functions/..%2F_ops%2Fmetadatas', '/1.1/functions/echo/../Hooked/beforeSave',
      ]) {
        for (const opts of [{}, { session: user.sessionToken }, { headers: { 'x-lc-hook-key': 'guessed' } }]) {
          const res = await h.client.post(path, {}, opts);
          assert.ok(res.status >= 400 && typeof res.body?.code === 'number', `${path}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      const batch = await h.client.post('/1.1/batch', { requests: [
        { method: 'POST', path: '/1.1/functions/Hooked/beforeSave', body: { object: {} } },
        { method: 'POST', path: '/1.1/functions/_ops/metadatas', body: {} },
        { method: 'POST', path: '/1.1/functions/echo', body: {} },
      ] }, { session: user.sessionToken });
      assert.ok(batch.status === 200 || batch.status === 400, JSON.stringify(batch.body));
      if (batch.status === 200) for (const item of batch.body) assert.ok(item.error, JSON.stringify(item));
      const reached = fake.calls.slice(before).filter((c) => c.path !== '/1.1/functions/_ops/metadatas' || c.headers['x-lc-hook-key'] === undefined);
      assert.deepEqual(reached.map((c) => c.path), [], 'nothing a client sent reached a hook or the metadata endpoint');
    });

    test("a function call carries the caller's own credentials only: never the hook key or the master key", async () => {
      const user = await signUp(h);
      const before = fake.calls.length;
      const res = await h.client.post('/1.1/functions/echo', { a: 1 }, { session: user.sessionToken });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [call] = fake.calls.slice(before);
      assert.equal(call.headers['x-lc-hook-key'], undefined);
      assert.equal(call.headers['x-lc-key'], TEST_KEYS.appKey);
      assert.equal(call.headers['x-lc-session'], user.sessionToken);
      assert.doesNotMatch(JSON.stringify(call.headers), new RegExp(TEST_KEYS.masterKey));
      // A wrong key is refused before the engine is asked.
      const n = fake.calls.length;
      const bad = await h.client.post('/1.1/functions/echo', {}, { headers: { 'x-lc-key': 'wrong' } });
      assert.equal(bad.status, 401, JSON.stringify(bad.body));
      assert.equal(fake.calls.length, n);
    });

    test('__ignore_hooks from a client is ignored on create, update, delete and in a batch; with the hook key it is honoured', async () => {
      const hooked = () => fake.callsTo('/1.1/functions/Hooked/beforeSave').length;
      let n = hooked();
      const created = await h.client.post('/1.1/classes/Hooked', { v: 1, __ignore_hooks: ['beforeSave', 'afterSave'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(hooked(), n + 1, 'beforeSave ran');
      n = hooked();
      const batch = await h.client.post('/1.1/batch', { requests: [{ method: 'POST', path: '/1.1/classes/Hooked', body: { v: 2, __ignore_hooks: ['beforeSave'] } }] }, { headers: { 'x-lc-hook-key': 'guessed' } });
      assert.equal(batch.status, 200, JSON.stringify(batch.body));
      assert.equal(hooked(), n + 1, 'beforeSave ran for the batch item');
      n = hooked();
      const skipped = await h.client.post('/1.1/classes/Hooked', { v: 3, __ignore_hooks: ['beforeSave'] }, { headers: { 'x-lc-hook-key': h.app.keys.hookKey } });
      assert.equal(skipped.status, 201, JSON.stringify(skipped.body));
      assert.equal(hooked(), n, 'the hook key may skip it');
      const stored = await h.client.get(`/1.1/classes/Hooked/${created.body.objectId}`);
      assert.equal(stored.body.__ignore_hooks, undefined);
    });
  });
}
