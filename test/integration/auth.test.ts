import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, test } from 'node:test';
import { forEachEngine, TEST_KEYS, type Harness } from './harness/engines.ts';
import type { TestResponse } from './harness/client.ts';

const UNAUTHORIZED = { code: 401, error: 'Unauthorized.' };
const WINDOW_MS = 15 * 60 * 1000;

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

function sign(key: string, ts: number, master = false): string {
  return `${md5(String(ts) + key)},${ts}${master ? ',master' : ''}`;
}

function assertUnauthorized(res: TestResponse, what: string): void {
  assert.equal(res.status, 401, `${what}: status ${res.status} ${res.text}`);
  assert.deepEqual(res.body, UNAUTHORIZED, what);
}

forEachEngine('auth: keys, signatures, legacy headers', (h: () => Harness) => {
  // An object only the master key can read (ACL {}): reading it tells master from app key.
  let secretId = '';
  // A public object: any authenticated caller reads it.
  let publicId = '';

  before(async () => {
    const secret = await h().client.post('/1.1/classes/AuthProbe', { kind: 'secret', ACL: {} }, { master: true });
    assert.equal(secret.status, 201, secret.text);
    secretId = secret.body.objectId;
    const pub = await h().client.post('/1.1/classes/AuthProbe', { kind: 'public' });
    assert.equal(pub.status, 201, pub.text);
    publicId = pub.body.objectId;
  });

  /** GETs the master-only object with exactly these headers (no default credentials). */
  async function readSecret(headers: Record<string, string>, query?: Record<string, string>): Promise<TestResponse> {
    return h().client.request({ method: 'GET', url: `/1.1/classes/AuthProbe/${secretId}`, auth: false, headers, query });
  }

  /** Asserts the call was authenticated, and as master or not. */
  async function assertAccess(headers: Record<string, string>, master: boolean, what: string): Promise<void> {
    const res = await readSecret(headers);
    assert.equal(res.status, 200, `${what}: ${res.status} ${res.text}`);
    if (master) assert.equal(res.body.kind, 'secret', `${what}: expected master access`);
    else assert.deepEqual(res.body, {}, `${what}: expected app-key access (object hidden by its ACL)`);
  }

  test('X-LC-Id + X-LC-Key: the app key is a client, "<master>,master" is the master key', async () => {
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey }, false, 'app key');
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master` }, true, 'master key');
    const pub = await h().client.request({ url: `/1.1/classes/AuthProbe/${publicId}`, auth: false, headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey } });
    assert.equal(pub.body.kind, 'public');
  });

  test('X-LC-Sign md5(timestamp + key): app key and master key, fresh timestamps', async () => {
    const now = Date.now();
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.appKey, now) }, false, 'app sign');
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.masterKey, now, true) }, true, 'master sign');
  });

  test('a master-key signature outside the 15 minute window is refused, in both directions', async () => {
    const now = Date.now();
    const minute = 60 * 1000;
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.masterKey, now - WINDOW_MS + minute, true) }, true, 'just inside (past)');
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.masterKey, now + WINDOW_MS - minute, true) }, true, 'just inside (future)');
    assertUnauthorized(await readSecret({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.masterKey, now - WINDOW_MS - minute, true) }), 'old master sign');
    assertUnauthorized(await readSecret({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.masterKey, now + WINDOW_MS + minute, true) }), 'future master sign');
  });

  test('an app-key signature with an old timestamp is accepted (no window, like the original)', async () => {
    await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': sign(TEST_KEYS.appKey, 1453014943466) }, false, 'app sign from 2016');
  });

  test('wrong app id, key or signature is 401 {"code":401,"error":"Unauthorized."}', async () => {
    const now = Date.now();
    const cases: [string, Record<string, string>][] = [
      ['wrong app id', { 'x-lc-id': 'otherApp', 'x-lc-key': TEST_KEYS.appKey }],
      ['app id in other case', { 'x-lc-id': TEST_KEYS.appId.toUpperCase(), 'x-lc-key': TEST_KEYS.appKey }],
      ['wrong app key', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': 'wrongKey' }],
      ['app key with ,master', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.appKey},master` }],
      ['bare master key as app key', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.masterKey }],
      ['wrong master key', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': 'wrongMaster,master' }],
      ['wrong sign', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': `${'0'.repeat(32)},${now}` }],
      ['sign of another timestamp', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': `${md5(String(now - 1) + TEST_KEYS.appKey)},${now}` }],
      ['app-key sign claiming master', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': `${sign(TEST_KEYS.appKey, now)},master` }],
      ['sign without timestamp', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': md5(String(now) + TEST_KEYS.appKey) }],
      ['sign with unknown suffix', { 'x-lc-id': TEST_KEYS.appId, 'x-lc-sign': `${sign(TEST_KEYS.appKey, now)},admin` }],
      ['right sign, wrong app id', { 'x-lc-id': 'otherApp', 'x-lc-sign': sign(TEST_KEYS.appKey, now) }],
    ];
    for (const [what, headers] of cases) assertUnauthorized(await readSecret(headers), what);
  });

  test('missing headers are 401', async () => {
    assertUnauthorized(await readSecret({}), 'no headers');
    assertUnauthorized(await readSecret({ 'x-lc-id': TEST_KEYS.appId }), 'id only');
    assertUnauthorized(await readSecret({ 'x-lc-key': TEST_KEYS.appKey }), 'key only');
    assertUnauthorized(await readSecret({ 'x-lc-id': '', 'x-lc-key': TEST_KEYS.appKey }), 'empty id');
    assertUnauthorized(await readSecret({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': '' }), 'empty key');
    // Writes are refused the same way, and nothing is written.
    const write = await h().client.request({ method: 'POST', url: '/1.1/classes/AuthNoWrite', body: { a: 1 }, auth: false });
    assertUnauthorized(write, 'unauthenticated create');
    const count = await h().client.get('/1.1/classes/AuthNoWrite', { count: 1, limit: 0 }, { master: true });
    assert.deepEqual(count.body, { results: [], count: 0 });
  });

  test('legacy X-AVOSCloud-* headers are accepted', async () => {
    const now = Date.now();
    await assertAccess({ 'x-avoscloud-application-id': TEST_KEYS.appId, 'x-avoscloud-application-key': TEST_KEYS.appKey }, false, 'legacy app key');
    await assertAccess({ 'x-avoscloud-application-id': TEST_KEYS.appId, 'x-avoscloud-application-key': `${TEST_KEYS.masterKey},master` }, true, 'legacy key ,master');
    await assertAccess({ 'x-avoscloud-application-id': TEST_KEYS.appId, 'x-avoscloud-master-key': TEST_KEYS.masterKey }, true, 'legacy master key header');
    await assertAccess({ 'x-avoscloud-application-id': TEST_KEYS.appId, 'x-avoscloud-request-sign': sign(TEST_KEYS.appKey, now) }, false, 'legacy sign');
    await assertAccess({ 'x-avoscloud-application-id': TEST_KEYS.appId, 'x-avoscloud-request-sign': sign(TEST_KEYS.masterKey, now, true) }, true, 'legacy master sign');
    await assertAccess({
      'x-avoscloud-application-id': TEST_KEYS.appId,
      'x-avoscloud-application-key': TEST_KEYS.appKey,
      'x-avoscloud-session-token': 'no-such-session',
      'x-avoscloud-application-production': '0',
    }, false, 'legacy session + production');
    assertUnauthorized(await readSecret({ 'x-avoscloud-application-id': TEST_KEYS.appId, 'x-avoscloud-master-key': 'wrong' }), 'legacy wrong master');
  });

  test('the master key is never accepted from the query string', async () => {
    const appHeaders = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
    const queries: Record<string, string>[] = [
      { masterKey: TEST_KEYS.masterKey },
      { _MasterKey: TEST_KEYS.masterKey },
      { 'X-LC-Key': `${TEST_KEYS.masterKey},master` },
      { 'x-avoscloud-master-key': TEST_KEYS.masterKey },
      { useMasterKey: 'true' },
    ];
    for (const query of queries) {
      const res = await readSecret(appHeaders, query);
      assert.equal(res.status, 200, JSON.stringify(query));
      assert.deepEqual(res.body, {}, `query ${JSON.stringify(query)} must not grant master`);
      // Without headers, query-string credentials authenticate nothing at all.
      assertUnauthorized(await readSecret({}, { ...query, 'X-LC-Id': TEST_KEYS.appId, appId: TEST_KEYS.appId }), `query only ${JSON.stringify(query)}`);
    }
  });

  test('X-LC-Prod 0 and 1 are accepted', async () => {
    for (const prod of ['0', '1']) {
      await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'x-lc-prod': prod }, false, `prod ${prod}`);
      await assertAccess({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master`, 'x-lc-prod': prod }, true, `master prod ${prod}`);
    }
  });

  test('an unknown X-LC-Session token is ignored on an object read', async () => {
    const res = await h().client.get(`/1.1/classes/AuthProbe/${publicId}`, undefined, { session: 'r:no-such-session-token' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.kind, 'public');
    assert.equal(res.body.objectId, publicId);
    // ...and grants nothing beyond the app key.
    const hidden = await h().client.get(`/1.1/classes/AuthProbe/${secretId}`, undefined, { session: 'r:no-such-session-token' });
    assert.deepEqual([hidden.status, hidden.body], [200, {}]);
  });

  test('the 401 body is the same whatever part was wrong (no oracle)', async () => {
    const a = await readSecret({ 'x-lc-id': 'otherApp', 'x-lc-key': TEST_KEYS.appKey });
    const b = await readSecret({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': 'wrong' });
    const c = await readSecret({ 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': 'wrong,master' });
    assert.equal(a.text, b.text);
    assert.equal(b.text, c.text);
  });
});
