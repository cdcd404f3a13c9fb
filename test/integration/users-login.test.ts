import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { RequestContext } from '../../src/app-context.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { makeContext } from '../../src/http/dispatch.ts';
import { sql } from '../../src/sql/fragment.ts';
import { logIn as logInUseCase } from '../../src/users/login.ts';
import { LOCK_WINDOW_MS } from '../../src/users/login-lock.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { assertError, logIn, signUp, uniqueName } from './harness/user-helpers.ts';

// leancloud-behaviour §2.3: an exported LeanCloud user with password "password".
const LC_SALT = 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2';
const LC_HASH = 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==';

function anonymousCtx(h: Harness): RequestContext {
  return makeContext(h.app, { credentials: {}, production: true }, false, 'http://127.0.0.1');
}

/** The use-case with an injected clock: resolves to 'ok' or the error code. */
async function loginAt(h: Harness, body: Record<string, unknown>, at: number): Promise<'ok' | number> {
  try {
    await logInUseCase(anonymousCtx(h), body, new Date(at));
    return 'ok';
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}

/** Moves a user's recorded failures back in time (as if `ms` had passed). */
async function age(h: Harness, userId: string, ms: number): Promise<void> {
  const secs = ms / 1000;
  await h.db.query(sql`UPDATE _larder_login_failures
    SET recent = ARRAY(SELECT t - make_interval(secs => ${secs}) FROM unnest(recent) AS t),
        last_failure = last_failure - make_interval(secs => ${secs})
    WHERE user_id = ${userId}`);
}

forEachEngine('users: login and login lock', (h) => {
  test('login by username, email or phone answers the whole user with its token', async () => {
    const email = `${uniqueName()}@example.com`;
    const u = await signUp(h(), { email, mobilePhoneNumber: '+8615000000003', color: 'red' });
    for (const id of [{ username: u.username }, { email }, { mobilePhoneNumber: '+8615000000003' }]) {
      const res = await logIn(h(), { ...id, password: u.password });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.objectId, u.objectId);
      assert.equal(res.body.sessionToken, u.sessionToken, 'one token per user');
      assert.equal(res.body.username, u.username);
      assert.equal(res.body.color, 'red');
      assert.equal(res.body.emailVerified, null);
      assert.equal(res.body.mobilePhoneVerified, false);
      assert.equal(res.body.password, undefined);
      assert.equal(res.body.salt, undefined);
    }
  });

  test('wrong password 210, unknown user 211, missing fields 200/201', async () => {
    const u = await signUp(h());
    assertError(await logIn(h(), { username: u.username, password: 'nope' }), 400, 210);
    assertError(await logIn(h(), { username: uniqueName('ghost'), password: 'x' }), 400, 211);
    assertError(await logIn(h(), { email: 'ghost@example.com', password: 'x' }), 400, 211);
    assertError(await logIn(h(), { password: 'x' }), 400, 200);
    assertError(await logIn(h(), { username: u.username }), 400, 201);
    assert.equal((await logIn(h(), { username: u.username, password: u.password })).status, 200);
  });

  test('operator injection in login fields is a 400 and never a lookup', async () => {
    const u = await signUp(h());
    for (const body of [
      { username: { $ne: null }, password: u.password },
      { username: u.username, password: { $ne: null } },
      { email: { $regex: '.*' }, password: u.password },
      { username: [u.username], password: u.password },
    ]) {
      assertError(await logIn(h(), body), 400, 1);
    }
  });

  test('a user without a password (authData) cannot log in with any password', async () => {
    const res = await h().client.post('/1.1/users', { authData: { github: { uid: uniqueName(), access_token: 't' } } });
    assert.equal(res.status, 201);
    assertError(await logIn(h(), { username: res.body.username, password: '' }), 400, 201);
    assertError(await logIn(h(), { username: res.body.username, password: 'anything' }), 400, 210);
  });

  test('an imported LeanCloud hash logs in and is upgraded to scrypt on that login', async () => {
    const objectId = randomBytes(12).toString('hex');
    const username = uniqueName('imported');
    await h().db.query(sql`INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES (${objectId}, now(), now(), NULL, ${['*']}::text[], ${[objectId]}::text[],
        ${JSON.stringify({ username, password: LC_HASH, salt: LC_SALT })}::jsonb)`);
    assertError(await logIn(h(), { username, password: 'Password' }), 400, 210);
    const res = await logIn(h(), { username, password: 'password' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.sessionToken, /^[a-z0-9]{25}$/, 'an imported user without a token gets one');
    const [row] = await h().db.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM "_User" WHERE "objectId" = ${objectId}`);
    assert.match(String(row.data.password), /^scrypt\$/);
    assert.equal(row.data.salt, undefined);
    const again = await logIn(h(), { username, password: 'password' });
    assert.equal(again.status, 200);
    assert.equal(again.body.sessionToken, res.body.sessionToken);
  });

  test('the 7th consecutive failure locks (219), even the right password is refused, a success before resets', async () => {
    const u = await signUp(h());
    const wrong = { username: u.username, password: 'wrong' };
    for (let i = 0; i < 5; i++) assertError(await logIn(h(), wrong), 400, 210);
    assert.equal((await logIn(h(), { username: u.username, password: u.password })).status, 200, 'a success resets');
    for (let i = 1; i <= 6; i++) assertError(await logIn(h(), wrong), 400, 210);
    assertError(await logIn(h(), wrong), 400, 219);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
    // By email too: the lock belongs to the user, not to the login name.
    assertError(await logIn(h(), { email: 'none@example.com', password: 'x' }), 400, 211);
  });

  test('the lock is released 15 minutes after the last failure (stored times moved back)', async () => {
    const u = await signUp(h());
    for (let i = 0; i < 7; i++) await logIn(h(), { username: u.username, password: 'wrong' });
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
    await age(h(), u.objectId, LOCK_WINDOW_MS - 5000);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
    await age(h(), u.objectId, 6000);
    assert.equal((await logIn(h(), { username: u.username, password: u.password })).status, 200);
    // ...and the count starts again from zero.
    for (let i = 0; i < 6; i++) assertError(await logIn(h(), { username: u.username, password: 'wrong' }), 400, 210);
  });

  test('the lock with an injected clock: failures spread over more than 15 minutes do not lock', async () => {
    const u = await signUp(h());
    const t0 = Date.UTC(2030, 0, 1);
    const min = 60 * 1000;
    const wrong = { username: u.username, password: 'wrong' };
    const out: (string | number)[] = [];
    for (const m of [0, 3, 6, 9, 12, 15, 18]) out.push(await loginAt(h(), wrong, t0 + m * min));
    assert.deepEqual(out, [210, 210, 210, 210, 210, 210, 210]);
    // At 19 the latest seven span 16 minutes: still 210. At 20 they span 14 (6..20): locked.
    assert.equal(await loginAt(h(), wrong, t0 + 19 * min), 210);
    assert.equal(await loginAt(h(), wrong, t0 + 20 * min), 219);
    assert.equal(await loginAt(h(), { username: u.username, password: u.password }, t0 + 34 * min), 219);
    assert.equal(await loginAt(h(), { username: u.username, password: u.password }, t0 + 35 * min), 'ok');
  });

  test('an unknown user takes as long as a wrong password (the KDF runs on a dummy hash)', async () => {
    const u = await signUp(h());
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const time = async (body: Record<string, unknown>, code: number) => {
      const t0 = performance.now();
      assertError(await logIn(h(), body), 400, code);
      return performance.now() - t0;
    };
    // Without the dummy check an unknown user answered after one indexed lookup: about a tenth
    // of a wrong password's time (one scrypt). A wrong password also writes its failure count (a
    // commit, slow on a loaded machine), so the two are compared with room to spare: 0.3 is far
    // from both. A busy machine can still distort one round of samples, so up to three rounds are
    // taken; code without the dummy check fails all three.
    const rounds: string[] = [];
    for (let round = 0; round < 3; round++) {
      const unknown: number[] = [];
      const wrong: number[] = [];
      // Interleaved, so that a busy machine slows both alike; under the lock threshold.
      for (let i = 0; i < 3; i++) {
        unknown.push(await time({ username: `nobody-${uniqueName()}`, password: 'guess' }, 211));
        wrong.push(await time({ username: u.username, password: `guess${round}${i}` }, 210));
      }
      if (median(unknown) > 0.3 * median(wrong)) return;
      rounds.push(`unknown ${unknown.map(Math.round)} ms vs wrong ${wrong.map(Math.round)} ms`);
      // A correct login resets the failure count, so the next round stays under the lock threshold.
      assert.equal((await logIn(h(), { username: u.username, password: u.password })).status, 200);
    }
    assert.fail(rounds.join('; '));
  });

  test('20 parallel wrong logins cannot slip past the threshold: 6 x 210, 14 x 219', async () => {
    const u = await signUp(h());
    const results = await Promise.all(Array.from({ length: 20 }, () => logIn(h(), { username: u.username, password: 'wrong' })));
    const codes = results.map((r) => r.body.code).sort();
    assert.deepEqual(codes, [...Array(6).fill(210), ...Array(14).fill(219)]);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
  });

  test('parallel guesses with the right password among them: at most 7 are checked', async () => {
    const u = await signUp(h());
    const bodies = Array.from({ length: 20 }, (_, i) => ({ username: u.username, password: i === 15 ? u.password : `wrong${i}` }));
    const results = await Promise.all(bodies.map((b) => logIn(h(), b)));
    const checked = results.filter((r) => r.status === 200 || r.body.code === 210).length;
    assert.ok(checked <= 7, `${checked} passwords were compared`);
  });
  test('login by mobilePhoneNumber + smsCode: a wrong code is 603, an unknown number 211, a code without a number 400', async () => {
    const u = await signUp(h(), { mobilePhoneNumber: '+8615100000006' });
    assertError(await logIn(h(), { mobilePhoneNumber: '+8615100000006', smsCode: '000000' }), 400, 603);
    assertError(await logIn(h(), { mobilePhoneNumber: '+8615199999999', smsCode: '000000' }), 400, 211);
    assertError(await logIn(h(), { username: u.username, smsCode: '000000' }), 400, 1);
    assertError(await logIn(h(), { mobilePhoneNumber: '+8615100000006', smsCode: { $ne: '' } }), 400, 1);
    // Wrong codes are not password failures: the password still works.
    assert.equal((await logIn(h(), { mobilePhoneNumber: '+8615100000006', password: u.password })).status, 200);
  });
});
