// Cloud functions through the official SDK (AV.Cloud.run / AV.Cloud.rpc) against Larder, which
// forwards them to a real LeanEngine app (npm `leanengine`) configured only by LEANCLOUD_* env.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { forEachEngineWithCloud } from '../integration/harness/engine-app.ts';
import { TEST_KEYS } from '../integration/harness/engines.ts';
import { AV, pointSdkAt, rejectsWithCode } from './sdk.ts';

const HEADERS = { 'X-LC-Id': TEST_KEYS.appId, 'X-LC-Key': TEST_KEYS.appKey, 'Content-Type': 'application/json' };

forEachEngineWithCloud('e2e cloud functions', (h) => {
  before(async () => {
    pointSdkAt(h().larderUrl);
    await AV.User.logOut();
  });

  test('AV.Cloud.run reaches the engine and returns its result', async () => {
    assert.equal(await AV.Cloud.run('hello', { name: 'Larder' }), 'hello Larder');
    assert.equal(await AV.Cloud.run('hello'), 'hello world');
  });

  test('the engine resolves request.currentUser through Larder /1.1/users/me', async () => {
    const user = new AV.User();
    user.setUsername(`fn${randomBytes(5).toString('hex')}`);
    user.setPassword('secret-pw');
    await user.signUp();
    const me = (await AV.Cloud.run('whoami')) as { id: string; username: string; sessionToken: string };
    assert.equal(me.id, user.id);
    assert.equal(me.username, user.getUsername());
    assert.equal(me.sessionToken, user.getSessionToken());
    await AV.User.logOut();
    assert.equal(await AV.Cloud.run('whoami'), null);
  });

  test('an invalid session is refused by the engine with 211 (it asked Larder, which said no)', async () => {
    await rejectsWithCode(AV.Cloud.run('whoami', {}, { sessionToken: 'qmdj8pdidnmyzp0c7yqil91oc' }), 211);
  });

  test('an error thrown by the function reaches the client with its code and message', async () => {
    const err = await rejectsWithCode(AV.Cloud.run('refuse'), 3001);
    assert.match(err.message, /nope/);
  });

  test('AV.Cloud.rpc returns an AV.Object the engine saved through Larder', async () => {
    const name = `thing-${randomBytes(4).toString('hex')}`;
    const thing = (await AV.Cloud.rpc('makeThing', { name })) as AV.Object;
    assert.ok(thing instanceof AV.Object);
    assert.equal(thing.get('name'), name);
    const again = await new AV.Query('Thing').get(thing.id as string);
    assert.equal(again.get('name'), name);
  });

  test('the answer comes back as the engine gave it: status, body; unknown function 404', async () => {
    const res = await fetch(`${h().larderUrl}/1.1/functions/noSuchFunction`, { method: 'POST', headers: HEADERS, body: '{}' });
    assert.equal(res.status, 404);
    const body = (await res.json()) as { code: number; error: string };
    assert.match(body.error, /No such cloud function 'noSuchFunction'/);
    const crash = await fetch(`${h().larderUrl}/1.1/functions/crash`, { method: 'POST', headers: HEADERS, body: '{}' });
    assert.equal(crash.status, 500);
    assert.deepEqual(await crash.json(), { code: 1, error: 'boom' });
  });

  test('X-LC-Prod, the client address and the master key are passed on; /1/ and /1.1/call work too', async () => {
    const staging = await fetch(`${h().larderUrl}/1.1/functions/meta`, { method: 'POST', headers: { ...HEADERS, 'X-LC-Prod': '0' }, body: '{"a":1}' });
    const s = (await staging.json()) as { result: { prod: number; remoteAddress: string; params: unknown; master: boolean } };
    assert.equal(s.result.prod, 0);
    assert.equal(s.result.remoteAddress, '127.0.0.1');
    assert.deepEqual(s.result.params, { a: 1 });
    assert.equal(s.result.master, false);
    const prod = await fetch(`${h().larderUrl}/1/call/meta`, { method: 'POST', headers: { ...HEADERS, 'X-LC-Key': `${TEST_KEYS.masterKey},master` }, body: '{}' });
    const p = (await prod.json()) as { result: { prod: number; master: boolean } };
    assert.equal(p.result.prod, 1);
    assert.equal(p.result.master, true);
  });

  test('hook paths and the metadatas endpoint are not reachable through Larder', async () => {
    for (const path of ['/1.1/functions/Review/beforeSave', '/1.1/functions/_ops/metadatas', '/1.1/functions/onVerified/sms']) {
      const res = await fetch(`${h().larderUrl}${path}`, { method: 'POST', headers: { ...HEADERS, 'X-LC-Key': `${TEST_KEYS.masterKey},master` }, body: '{"object":{}}' });
      assert.equal(res.status, 404, path);
      assert.equal(((await res.json()) as { code: number }).code, 404);
    }
  });

  test('wrong app key: 401 from Larder, the engine is not asked', async () => {
    const res = await fetch(`${h().larderUrl}/1.1/functions/hello`, { method: 'POST', headers: { ...HEADERS, 'X-LC-Key': 'wrong' }, body: '{}' });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: number }).code, 401);
  });

  test('a body over the limit is refused with 413; an answer over it with 502', async () => {
    const big = JSON.stringify({ pad: 'y'.repeat(21 * 1024 * 1024) });
    const res = await fetch(`${h().larderUrl}/1.1/functions/hello`, { method: 'POST', headers: HEADERS, body: big });
    assert.equal(res.status, 413);
  });
});

forEachEngineWithCloud(
  'e2e cloud function limits',
  (h) => {
    test('a function slower than the timeout: 503 code 124', async () => {
      const res = await fetch(`${h().larderUrl}/1.1/functions/slow`, { method: 'POST', headers: HEADERS, body: '{"ms":3000}' });
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { code: number }).code, 124);
    });

    test('a body and an answer above 64 KiB (streamed, not read whole) arrive intact', async () => {
      const pad = 'p'.repeat(100_000);
      const res = await fetch(`${h().larderUrl}/1.1/functions/big`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ size: 150_000, pad }) });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { result: string };
      assert.equal(body.result, 'x'.repeat(150_000));
      const echoed = await fetch(`${h().larderUrl}/1.1/functions/meta`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ pad }) });
      assert.equal(((await echoed.json()) as { result: { params: { pad: string } } }).result.params.pad, pad);
    });

    test('an answer larger than the body limit is cut', async () => {
      const res = await fetch(`${h().larderUrl}/1.1/functions/big`, { method: 'POST', headers: HEADERS, body: '{"size":300000}' });
      // The engine sends a Content-Length: Larder refuses before passing anything on.
      assert.equal(res.status, 502);
      assert.equal(((await res.json()) as { code: number }).code, 1);
    });
  },
  { functionTimeoutMs: 1000, bodyLimitBytes: 200_000 },
);
