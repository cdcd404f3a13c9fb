// Changing the logged-in user's phone number by SMS (requestChangePhoneNumber + changePhoneNumber,
// leancloud-behaviour §2.4) on both engines: the code goes to the NEW number through the app's
// sender, works only for the user who asked and the number it went to, once (also when used twice
// at once), within its TTL (default 6 minutes), and the result is a verified number.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { CapturingSmsSender, newPhone } from './harness/sms-capture.ts';
import { assertError, signUp, type SignedUpUser } from './harness/user-helpers.ts';

const MINUTE = 60_000;

async function requestChange(h: Harness, user: SignedUpUser, phone: string, extra: Record<string, unknown> = {}) {
  return h.client.post('/1.1/requestChangePhoneNumber', { mobilePhoneNumber: phone, ...extra }, { session: user.sessionToken });
}

async function change(h: Harness, user: SignedUpUser, phone: string, code: string) {
  return h.client.post('/1.1/changePhoneNumber', { mobilePhoneNumber: phone, code }, { session: user.sessionToken });
}

async function storedUser(h: Harness, user: SignedUpUser): Promise<Record<string, unknown>> {
  const [row] = await h.db.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM "_User" WHERE "objectId" = ${user.objectId}`);
  return row.data;
}

forEachEngine('users change phone', (h) => {
  let sender = new CapturingSmsSender();
  beforeEach(() => {
    sender = new CapturingSmsSender();
    h().app.smsSender = sender;
    h().app.clock = undefined;
  });

  test('the code goes to the new number; changePhoneNumber sets it, verified; {} both times', async () => {
    const old = newPhone();
    const user = await signUp(h(), { mobilePhoneNumber: old });
    const phone = newPhone();
    const res = await requestChange(h(), user, phone);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {});
    assert.equal(sender.to(old).length, 0, 'nothing goes to the old number');
    const [m] = sender.to(phone);
    assert.equal(m.purpose, 'changePhone');
    assert.equal(m.ttlMinutes, 6, 'default ttl is 6 minutes');
    assert.match(m.code, /^[0-9]{6}$/);
    const before = await storedUser(h(), user);
    assert.equal(before.mobilePhoneNumber, old, 'requesting changes nothing yet');

    const done = await change(h(), user, phone, m.code);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body, {});
    const me = await h().client.get('/1.1/users/me', undefined, { session: user.sessionToken });
    assert.equal(me.body.mobilePhoneNumber, phone);
    assert.equal(me.body.mobilePhoneVerified, true);
    // The code is spent.
    assertError(await change(h(), user, phone, m.code), 400, 603);
  });

  test('a user without a number gets one; ttl is passed on and bounded', async () => {
    const user = await signUp(h());
    const phone = newPhone();
    assert.equal((await requestChange(h(), user, phone, { ttl: 2 })).status, 200);
    assert.equal(sender.to(phone)[0].ttlMinutes, 2);
    for (const ttl of [0, 31, 'x', 1.5]) assertError(await requestChange(h(), user, newPhone(), { ttl }), 400, 1);
    assert.equal((await change(h(), user, phone, sender.lastCode(phone))).status, 200);
    assert.equal((await storedUser(h(), user)).mobilePhoneNumber, phone);
  });

  test('without a session: 206 on both endpoints, with a message naming X-LC-Session; nothing sent', async () => {
    const phone = newPhone();
    for (const path of ['requestChangePhoneNumber', 'changePhoneNumber']) {
      const anon = await h().client.post(`/1.1/${path}`, { mobilePhoneNumber: phone, code: '123456' });
      assertError(anon, 403, 206);
      assert.match(anon.body.error, /X-LC-Session/);
      assertError(await h().client.post(`/1.1/${path}`, { mobilePhoneNumber: phone, code: '123456' }, { session: 'notavalidtoken0000000000x' }), 403, 206);
      assertError(await h().client.post(`/1.1/${path}`, { mobilePhoneNumber: phone, code: '123456' }, { master: true }), 403, 206);
    }
    assert.equal(sender.sent.length, 0);
  });

  test('bad input: missing number 212, invalid number 127, missing code 603, body not an object 107', async () => {
    const user = await signUp(h());
    assertError(await requestChange(h(), user, ''), 400, 212);
    for (const bad of ['138 0013 8000', 'abc', { $ne: '' }, 13800138000]) {
      assertError(await h().client.post('/1.1/requestChangePhoneNumber', { mobilePhoneNumber: bad }, { session: user.sessionToken }), 400, 127);
      assertError(await h().client.post('/1.1/changePhoneNumber', { mobilePhoneNumber: bad, code: '123456' }, { session: user.sessionToken }), 400, 127);
    }
    assertError(await h().client.post('/1.1/changePhoneNumber', { mobilePhoneNumber: newPhone() }, { session: user.sessionToken }), 400, 603);
    assertError(await h().client.post('/1.1/changePhoneNumber', { mobilePhoneNumber: newPhone(), code: { $ne: '' } }, { session: user.sessionToken }), 400, 603);
    assertError(await h().client.post('/1.1/requestChangePhoneNumber', 'x', { session: user.sessionToken }), 400, 107);
    assert.equal(sender.sent.length, 0);
  });

  test("a number another user has is 214 and gets no SMS; the user's own number may be re-verified", async () => {
    const taken = newPhone();
    await signUp(h(), { mobilePhoneNumber: taken });
    const user = await signUp(h(), { mobilePhoneNumber: newPhone() });
    assertError(await requestChange(h(), user, taken), 400, 214);
    assert.equal(sender.to(taken).length, 0);
    const own = (await storedUser(h(), user)).mobilePhoneNumber as string;
    assert.equal((await requestChange(h(), user, own)).status, 200);
    assert.equal((await change(h(), user, own, sender.lastCode(own))).status, 200);
    assert.equal((await storedUser(h(), user)).mobilePhoneVerified, true);
  });

  test('the number taken between request and change: 214, and the code still works once it is free', async () => {
    const user = await signUp(h());
    const phone = newPhone();
    await requestChange(h(), user, phone);
    const code = sender.lastCode(phone);
    const other = await signUp(h(), { mobilePhoneNumber: phone });
    assertError(await change(h(), user, phone, code), 400, 214);
    assert.equal((await storedUser(h(), user)).mobilePhoneNumber, undefined);
    await h().client.put(`/1.1/users/${other.objectId}`, { mobilePhoneNumber: newPhone() }, { session: other.sessionToken });
    assert.equal((await change(h(), user, phone, code)).status, 200);
  });

  test('only the user who asked, only the number the code went to, only a change code: 603 otherwise', async () => {
    const alice = await signUp(h());
    const bob = await signUp(h());
    const phone = newPhone();
    await requestChange(h(), alice, phone);
    const code = sender.lastCode(phone);
    // Bob cannot use Alice's code for the same number.
    assertError(await change(h(), bob, phone, code), 400, 603);
    // Alice cannot move the code to another number.
    const elsewhere = newPhone();
    assertError(await change(h(), alice, elsewhere, code), 400, 603);
    assert.equal((await storedUser(h(), alice)).mobilePhoneNumber, undefined);
    // A code of another flow (requestSmsCode to the same number) does not change a number.
    const other = newPhone();
    assert.equal((await h().client.post('/1.1/requestSmsCode', { mobilePhoneNumber: other })).status, 200);
    assertError(await change(h(), alice, other, sender.lastCode(other)), 400, 603);
    // Alice's own code still works (two wrong guesses are under the limit of five).
    assert.equal((await change(h(), alice, phone, code)).status, 200);
    assert.equal((await storedUser(h(), bob)).mobilePhoneNumber, undefined);
  });

  test('five wrong codes retire the outstanding code', async () => {
    const user = await signUp(h());
    const phone = newPhone();
    await requestChange(h(), user, phone);
    const code = sender.lastCode(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) assertError(await change(h(), user, phone, wrong), 400, 603);
    assertError(await change(h(), user, phone, code), 400, 603);
  });

  test('an expired code is refused', async () => {
    const user = await signUp(h());
    const phone = newPhone();
    await requestChange(h(), user, phone, { ttl: 1 });
    const code = sender.lastCode(phone);
    h().app.clock = () => new Date(Date.now() + MINUTE + 5_000);
    assertError(await change(h(), user, phone, code), 400, 603);
    assert.equal((await storedUser(h(), user)).mobilePhoneNumber, undefined);
  });

  test('the same code used five times at once changes the number once', async () => {
    const user = await signUp(h());
    const phone = newPhone();
    await requestChange(h(), user, phone);
    const code = sender.lastCode(phone);
    const results = await Promise.all(Array.from({ length: 5 }, () => change(h(), user, phone, code)));
    const okCount = results.filter((r) => r.status === 200).length;
    assert.equal(okCount, 1, JSON.stringify(results.map((r) => [r.status, r.body])));
    for (const r of results.filter((x) => x.status !== 200)) assertError(r, 400, 603);
    const [row] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_sms_codes WHERE phone = ${phone} AND used_at IS NULL`);
    assert.equal(row.n, 0);
  });

  test('the 601 limits of the number apply: a second request within a minute is refused', async () => {
    const user = await signUp(h());
    const phone = newPhone();
    assert.equal((await requestChange(h(), user, phone)).status, 200);
    assertError(await requestChange(h(), user, phone), 400, 601);
    assert.equal(sender.to(phone).length, 1);
  });

  test('without a sender: 503 code 1, as the other SMS endpoints', async () => {
    const user = await signUp(h());
    h().app.smsSender = undefined;
    const res = await requestChange(h(), user, newPhone());
    assertError(res, 503, 1);
  });
});
