// SMS flows on both engines: codes requested through the API reach the app's pluggable sender (a
// capturing one here), are used through the API, and behave as leancloud-behaviour §2.4 and the
// issue say: six digits, hashed at rest, single-use (also under concurrent use), TTL, 601 limits,
// 603 for wrong codes, 127 for bad numbers. The webhook sender is tested against a local server.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, beforeEach, test } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { sql } from '../../src/sql/fragment.ts';
import { LogSmsSender } from '../../src/sms/sms-sender.ts';
import { webhookSignature, WebhookSmsSender } from '../../src/sms/webhook-sender.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { CapturingSmsSender, newPhone } from './harness/sms-capture.ts';
import { assertError, logIn, signUp } from './harness/user-helpers.ts';

const MINUTE = 60_000;

function shiftClock(h: Harness, ms: number): void {
  h.app.clock = () => new Date(Date.now() + ms);
}

function useCapture(h: () => Harness): () => CapturingSmsSender {
  let sender = new CapturingSmsSender();
  beforeEach(() => {
    sender = new CapturingSmsSender();
    h().app.smsSender = sender;
    h().app.clock = undefined;
  });
  return () => sender;
}

async function requestCode(h: Harness, phone: string, extra: Record<string, unknown> = {}) {
  const res = await h.client.post('/1.1/requestSmsCode', { mobilePhoneNumber: phone, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, {});
}

forEachEngine('sms without a sender', (h) => {
  test('every code-sending endpoint answers 503 code 1', async () => {
    for (const path of ['requestSmsCode', 'requestLoginSmsCode', 'requestMobilePhoneVerify', 'requestPasswordResetBySmsCode']) {
      const res = await h().client.post(`/1.1/${path}`, { mobilePhoneNumber: newPhone() });
      assertError(res, 503, 1);
      assert.match(res.body.error, /LARDER_SMS_SENDER/);
    }
  });
});

forEachEngine('sms codes', (h) => {
  const sender = useCapture(h);

  test('bad input: missing number 212, malformed or non-string number 127, bad ttl or smsType 400', async () => {
    const c = h().client;
    for (const path of ['requestSmsCode', 'requestLoginSmsCode', 'requestMobilePhoneVerify', 'requestPasswordResetBySmsCode']) {
      assertError(await c.post(`/1.1/${path}`, {}), 400, 212);
      for (const bad of ['138 0013 8000', '+86-138', 'abc', '+', { $ne: '' }, ['+8613800138000'], 13800138000]) {
        assertError(await c.post(`/1.1/${path}`, { mobilePhoneNumber: bad }), 400, 127);
      }
      assertError(await c.post(`/1.1/${path}`, 'x'), 400, 107);
    }
    for (const ttl of [0, 31, 1.5, -1, 'ten', { $gt: 1 }]) assertError(await c.post('/1.1/requestSmsCode', { mobilePhoneNumber: newPhone(), ttl }), 400, 1);
    assertError(await c.post('/1.1/requestSmsCode', { mobilePhoneNumber: newPhone(), smsType: 'fax' }), 400, 1);
    assertError(await c.post('/1.1/requestSmsCode', { mobilePhoneNumber: newPhone(), name: { a: 1 } }), 400, 1);
    assert.equal(sender().sent.length, 0);
  });

  test('a code is six digits, reaches the sender with its options, and is stored only hashed', async () => {
    const phone = newPhone();
    await requestCode(h(), phone, { ttl: 5, smsType: 'voice', template: 'reg', sign: 'Pantry', name: 'Pantry', op: 'sign-up', count: 3 });
    const [m] = sender().to(phone);
    assert.match(m.code, /^[0-9]{6}$/);
    assert.deepEqual({ ...m, code: 'x' }, {
      phone, code: 'x', ttlMinutes: 5, purpose: 'sms', type: 'voice', template: 'reg', sign: 'Pantry',
      variables: { name: 'Pantry', op: 'sign-up', count: '3' },
    });
    const rows = await h().db.query<Record<string, unknown>>(sql`SELECT * FROM _larder_sms_codes WHERE phone = ${phone}`);
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(m.code), 'the code is not stored in the clear');
    assert.match(String(rows[0].code_hash), /^[0-9a-f]{64}$/);
  });

  test('one code a minute and ten a day per number (601)', async () => {
    const phone = newPhone();
    await requestCode(h(), phone);
    assertError(await h().client.post('/1.1/requestSmsCode', { mobilePhoneNumber: phone }), 400, 601);
    // Another number is not affected.
    await requestCode(h(), newPhone());
    for (let i = 1; i < 10; i++) {
      shiftClock(h(), i * 2 * MINUTE);
      await requestCode(h(), phone);
    }
    shiftClock(h(), 10 * 2 * MINUTE);
    const res = await h().client.post('/1.1/requestSmsCode', { mobilePhoneNumber: phone });
    assertError(res, 400, 601);
    assert.match(res.body.error, /10 codes a day/);
    assert.equal(sender().to(phone).length, 10);
    // A day after the first code, one more may go out.
    shiftClock(h(), 24 * 60 * MINUTE + MINUTE);
    await requestCode(h(), phone);
  });

  test('ten requests for one number at once send exactly one code', async () => {
    const phone = newPhone();
    const results = await Promise.all(Array.from({ length: 10 }, () => h().client.post('/1.1/requestSmsCode', { mobilePhoneNumber: phone })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(9).fill(400)]);
    assert.equal(sender().to(phone).length, 1);
  });

  test('verifySmsCode: wrong 603, right {}, again 603; with or without the number', async () => {
    const phone = newPhone();
    await requestCode(h(), phone);
    const code = sender().lastCode(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    assertError(await h().client.post(`/1.1/verifySmsCode/${wrong}`, { mobilePhoneNumber: phone }), 400, 603);
    assertError(await h().client.post(`/1.1/verifySmsCode/${code}`, { mobilePhoneNumber: newPhone() }), 400, 603);
    const ok = await h().client.post(`/1.1/verifySmsCode/${code}`, { mobilePhoneNumber: phone });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, {});
    assertError(await h().client.post(`/1.1/verifySmsCode/${code}`, { mobilePhoneNumber: phone }), 400, 603);

    const other = newPhone();
    await requestCode(h(), other);
    const res = await h().client.post(`/1.1/verifySmsCode/${sender().lastCode(other)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assertError(await h().client.post(`/1.1/verifySmsCode/${sender().lastCode(other)}`), 400, 603);
    assertError(await h().client.post('/1.1/verifySmsCode/12345a', { mobilePhoneNumber: phone }), 400, 603);
  });

  test('a code expires after its ttl', async () => {
    const phone = newPhone();
    await requestCode(h(), phone, { ttl: 1 });
    shiftClock(h(), MINUTE + 1000);
    assertError(await h().client.post(`/1.1/verifySmsCode/${sender().lastCode(phone)}`, { mobilePhoneNumber: phone }), 400, 603);
    const p2 = newPhone();
    await requestCode(h(), p2);
    shiftClock(h(), 9 * MINUTE);
    assert.equal((await h().client.post(`/1.1/verifySmsCode/${sender().lastCode(p2)}`, { mobilePhoneNumber: p2 })).status, 200);
  });

  test('five wrong guesses retire the outstanding code', async () => {
    const phone = newPhone();
    await requestCode(h(), phone);
    const code = sender().lastCode(phone);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) assertError(await h().client.post(`/1.1/verifySmsCode/${wrong}`, { mobilePhoneNumber: phone }), 400, 603);
    assertError(await h().client.post(`/1.1/verifySmsCode/${code}`, { mobilePhoneNumber: phone }), 400, 603);
  });

  test('the same code used five times at once succeeds once', async () => {
    const phone = newPhone();
    await requestCode(h(), phone);
    const code = sender().lastCode(phone);
    const results = await Promise.all(Array.from({ length: 5 }, () => h().client.post(`/1.1/verifySmsCode/${code}`, { mobilePhoneNumber: phone })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400, 400]);
  });

  test('a sender failure is 602, and the code does not count towards the limit', async () => {
    const phone = newPhone();
    sender().failing = true;
    assertError(await h().client.post('/1.1/requestSmsCode', { mobilePhoneNumber: phone }), 502, 602);
    sender().failing = false;
    await requestCode(h(), phone);
    assert.equal(sender().to(phone).length, 1);
  });
});

forEachEngine('sms sign-up, login, verification and reset', (h) => {
  const sender = useCapture(h);

  test('usersByMobilePhone signs a new number up (201), then logs it in (200)', async () => {
    const phone = newPhone();
    await requestCode(h(), phone);
    assertError(await h().client.post('/1.1/usersByMobilePhone', { mobilePhoneNumber: phone, smsCode: '999999x' }), 400, 603);
    const res = await h().client.post('/1.1/usersByMobilePhone', { mobilePhoneNumber: phone, smsCode: sender().lastCode(phone), nickname: 'Ann', password: 'pw-phone' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.headers.location, `http://localhost:80/1.1/users/${res.body.objectId}`);
    assert.equal(res.body.username, phone);
    assert.equal(res.body.mobilePhoneNumber, phone);
    assert.equal(res.body.mobilePhoneVerified, true);
    assert.equal(res.body.nickname, 'Ann');
    assert.match(res.body.sessionToken, /^[a-z0-9]{25}$/);
    assert.equal(res.body.smsCode, undefined);
    assert.equal(res.body.password, undefined);
    // The code is used up.
    assertError(await h().client.post('/1.1/usersByMobilePhone', { mobilePhoneNumber: phone, smsCode: sender().lastCode(phone) }), 400, 603);
    assert.equal((await logIn(h(), { username: phone, password: 'pw-phone' })).status, 200);

    shiftClock(h(), 2 * MINUTE);
    await requestCode(h(), phone);
    const again = await h().client.post('/1.1/usersByMobilePhone', { mobilePhoneNumber: phone, smsCode: sender().lastCode(phone), nickname: 'ignored' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.objectId, res.body.objectId);
    assert.equal(again.body.sessionToken, res.body.sessionToken);
    assert.equal(again.body.nickname, 'Ann');
  });

  test('one code sent to usersByMobilePhone twice at once creates one user', async () => {
    const phone = newPhone();
    await requestCode(h(), phone);
    const code = sender().lastCode(phone);
    const results = await Promise.all([1, 2, 3].map(() => h().client.post('/1.1/usersByMobilePhone', { mobilePhoneNumber: phone, smsCode: code })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 400, 400]);
    const users = await h().client.get('/1.1/users', { where: { mobilePhoneNumber: phone } }, { master: true });
    assert.equal(users.body.results.length, 1);
  });

  test('requestLoginSmsCode + login with smsCode; a login code works once, also under concurrent use', async () => {
    const phone = newPhone();
    const u = await signUp(h(), { mobilePhoneNumber: phone });
    const res = await h().client.post('/1.1/requestLoginSmsCode', { mobilePhoneNumber: phone });
    assert.deepEqual([res.status, res.body], [200, {}]);
    const [m] = sender().to(phone);
    assert.equal(m.purpose, 'login');
    const results = await Promise.all([1, 2, 3].map(() => logIn(h(), { mobilePhoneNumber: phone, smsCode: m.code })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400]);
    const winner = results.find((r) => r.status === 200);
    assert.equal(winner?.body.objectId, u.objectId);
    for (const r of results.filter((x) => x.status === 400)) assert.equal(r.body.code, 603);
  });

  test('unknown numbers: the same {} and the same limits, but nothing is sent', async () => {
    for (const path of ['requestLoginSmsCode', 'requestPasswordResetBySmsCode', 'requestMobilePhoneVerify']) {
      const phone = newPhone();
      const res = await h().client.post(`/1.1/${path}`, { mobilePhoneNumber: phone });
      assert.deepEqual([res.status, res.body], [200, {}]);
      assertError(await h().client.post(`/1.1/${path}`, { mobilePhoneNumber: phone }), 400, 601);
      assert.equal(sender().to(phone).length, 0);
    }
  });

  test('requestMobilePhoneVerify + verifyMobilePhone set mobilePhoneVerified; verified numbers get no SMS', async () => {
    const phone = newPhone();
    const u = await signUp(h(), { mobilePhoneNumber: phone });
    assert.equal(u.body.mobilePhoneVerified, false);
    await h().client.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: phone });
    const [m] = sender().to(phone);
    assert.equal(m.purpose, 'verify');
    const res = await h().client.post(`/1.1/verifyMobilePhone/${m.code}`, { mobilePhoneNumber: phone });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.objectId, u.objectId);
    assert.match(res.body.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const me = await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken });
    assert.equal(me.body.mobilePhoneVerified, true);
    assert.equal(me.body.updatedAt, res.body.updatedAt);

    shiftClock(h(), 2 * MINUTE);
    assert.deepEqual((await h().client.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: phone })).body, {});
    assert.equal(sender().to(phone).length, 1);
  });

  test('verifyMobilePhone without a number: the session user\'s number, or the code alone', async () => {
    const p1 = newPhone();
    const u1 = await signUp(h(), { mobilePhoneNumber: p1 });
    await h().client.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: p1 });
    const bySession = await h().client.post(`/1.1/verifyMobilePhone/${sender().lastCode(p1)}`, undefined, { session: u1.sessionToken });
    assert.equal(bySession.status, 200, JSON.stringify(bySession.body));
    assert.equal(bySession.body.objectId, u1.objectId);

    const p2 = newPhone();
    const u2 = await signUp(h(), { mobilePhoneNumber: p2 });
    await h().client.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: p2 });
    const byCode = await h().client.post(`/1.1/verifyMobilePhone/${sender().lastCode(p2)}`);
    assert.equal(byCode.status, 200, JSON.stringify(byCode.body));
    assert.equal(byCode.body.objectId, u2.objectId);
    assertError(await h().client.post(`/1.1/verifyMobilePhone/${sender().lastCode(p2)}`), 400, 603);
  });

  test('resetPasswordBySmsCode: new password works, old one and old session do not; code works once', async () => {
    const phone = newPhone();
    const u = await signUp(h(), { mobilePhoneNumber: phone });
    assert.deepEqual((await h().client.post('/1.1/requestPasswordResetBySmsCode', { mobilePhoneNumber: phone })).body, {});
    const [m] = sender().to(phone);
    assert.equal(m.purpose, 'reset');
    assertError(await h().client.put(`/1.1/resetPasswordBySmsCode/${m.code}`, { password: '  ', mobilePhoneNumber: phone }), 400, 218);
    assertError(await h().client.put(`/1.1/resetPasswordBySmsCode/${m.code}`, { password: { $ne: 1 }, mobilePhoneNumber: phone }), 400, 218);
    const results = await Promise.all(['a1', 'a2', 'a3'].map((pw) => h().client.put(`/1.1/resetPasswordBySmsCode/${m.code}`, { password: pw, mobilePhoneNumber: phone })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400]);
    const winner = ['a1', 'a2', 'a3'][results.findIndex((r) => r.status === 200)];
    assert.deepEqual(results.find((r) => r.status === 200)?.body, {});
    assert.equal((await logIn(h(), { username: u.username, password: winner })).status, 200);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 210);
    assertError(await h().client.get('/1.1/users/me', undefined, { session: u.sessionToken }), 400, 211);
  });

  test('resetPasswordBySmsCode with the code alone (as the JS SDK sends it)', async () => {
    const phone = newPhone();
    const u = await signUp(h(), { mobilePhoneNumber: phone });
    await h().client.post('/1.1/requestPasswordResetBySmsCode', { mobilePhoneNumber: phone });
    const res = await h().client.put(`/1.1/resetPasswordBySmsCode/${sender().lastCode(phone)}`, { password: 'by-code-only' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await logIn(h(), { username: u.username, password: 'by-code-only' })).status, 200);
  });

  test('a code of one flow does not work alone for another flow', async () => {
    const phone = newPhone();
    const u = await signUp(h(), { mobilePhoneNumber: phone });
    await h().client.post('/1.1/requestLoginSmsCode', { mobilePhoneNumber: phone });
    assertError(await h().client.put(`/1.1/resetPasswordBySmsCode/${sender().lastCode(phone)}`, { password: 'nope' }), 400, 603);
    assert.equal((await logIn(h(), { username: u.username, password: u.password })).status, 200);
  });
});

forEachEngine('sms codes without a number: the app-wide guard', (h) => {
  const sender = useCapture(h);
  test('after 20 wrong codes without a number, codes alone are refused for the hour; with the number they work', async () => {
    const phone = newPhone();
    await signUp(h(), { mobilePhoneNumber: phone });
    await h().client.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: phone });
    const code = sender().lastCode(phone);
    let wrongs = 0;
    for (let n = 0; wrongs < 20; n++) {
      const guess = String(n).padStart(6, '0');
      if (guess === code) continue;
      assertError(await h().client.post(`/1.1/verifyMobilePhone/${guess}`), 400, 603);
      wrongs++;
    }
    const refused = await h().client.post(`/1.1/verifyMobilePhone/${code}`);
    assertError(refused, 400, 603);
    assert.match(refused.body.error, /send mobilePhoneNumber/);
    assert.equal((await h().client.post(`/1.1/verifyMobilePhone/${code}`, { mobilePhoneNumber: phone })).status, 200);
    // An hour later the budget is back.
    shiftClock(h(), 61 * MINUTE);
    const p2 = newPhone();
    await signUp(h(), { mobilePhoneNumber: p2 });
    await h().client.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: p2 });
    assert.equal((await h().client.post(`/1.1/verifyMobilePhone/${sender().lastCode(p2)}`)).status, 200);
  });
});

/** Collects the JSON log lines of a logger. */
function capturedLogger(level = 'info'): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { logger: createLogger(level, dest as never), lines };
}

forEachEngine('sms senders: webhook and log', (h) => {
  let server: Server;
  let url: string;
  let behaviour: 'ok' | 'fail' | 'slow' | 'redirect' = 'ok';
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        if (behaviour === 'fail') res.writeHead(500).end('down');
        else if (behaviour === 'redirect') res.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' }).end();
        else if (behaviour === 'slow') setTimeout(() => res.writeHead(200).end(), 1500);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    url = `http://127.0.0.1:${addr.port}/sms`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    h().app.clock = undefined;
    behaviour = 'ok';
  });

  test('the webhook sender POSTs the message as signed JSON', async () => {
    const { logger } = capturedLogger();
    h().app.smsSender = new WebhookSmsSender({ url, secret: 'hook-secret', timeoutMs: 1000, logger });
    const phone = newPhone();
    const before = received.length;
    await requestCode(h(), phone, { name: 'Pantry' });
    const got = received[before];
    assert.equal(got.headers['content-type'], 'application/json');
    const body = JSON.parse(got.body);
    assert.equal(body.to, phone);
    assert.match(body.code, /^[0-9]{6}$/);
    assert.deepEqual({ ...body, code: 'x' }, { to: phone, code: 'x', ttl: 10, purpose: 'sms', type: 'sms', variables: { name: 'Pantry' } });
    const ts = String(got.headers['x-larder-timestamp']);
    assert.equal(got.headers['x-larder-signature'], webhookSignature('hook-secret', ts, got.body));
    // The code the gateway got is the one Larder accepts.
    assert.equal((await h().client.post(`/1.1/verifySmsCode/${body.code}`, { mobilePhoneNumber: phone })).status, 200);
  });

  test('webhook failures (HTTP 500, redirect, timeout) are 602, never log the code, and do not count', async () => {
    const { logger, lines } = capturedLogger();
    h().app.smsSender = new WebhookSmsSender({ url, timeoutMs: 300, logger });
    for (const b of ['fail', 'redirect', 'slow'] as const) {
      behaviour = b;
      const phone = newPhone();
      const before = received.length;
      assertError(await h().client.post('/1.1/requestSmsCode', { mobilePhoneNumber: phone }), 502, 602);
      const sentCode = JSON.parse(received[before].body).code as string;
      assert.ok(!lines.join('').includes(sentCode), `${b}: the code must not be logged`);
      assert.ok(!lines.join('').includes(phone), `${b}: the number is not logged either`);
      behaviour = 'ok';
      await requestCode(h(), phone);
    }
    assert.equal(lines.length, 3);
    assert.ok(!('x-larder-signature' in received[received.length - 1].headers), 'no signature without a secret');
  });

  test('the log sender logs the number at info and the code only at debug (development only)', async () => {
    const info = capturedLogger('info');
    h().app.smsSender = new LogSmsSender(info.logger);
    const p1 = newPhone();
    await requestCode(h(), p1);
    assert.equal(info.lines.length, 1);
    const record = JSON.parse(info.lines[0]);
    assert.deepEqual([record.smsTo, record.purpose, record.level], [p1, 'sms', 30]);
    // No code at info level: only these fields, and a message without digits.
    assert.deepEqual(Object.keys(record).sort(), ['level', 'msg', 'pid', 'purpose', 'smsTo', 'time', 'ttlMinutes']);
    assert.ok(!/[0-9]/.test(record.msg), record.msg);

    const debug = capturedLogger('debug');
    h().app.smsSender = new LogSmsSender(debug.logger);
    const p2 = newPhone();
    await requestCode(h(), p2);
    const code = /SMS code for \S+: ([0-9]{6})/.exec(JSON.parse(debug.lines[1]).msg)?.[1];
    assert.ok(code, debug.lines.join(''));
    assert.equal((await h().client.post(`/1.1/verifySmsCode/${code}`, { mobilePhoneNumber: p2 })).status, 200);
  });
});
