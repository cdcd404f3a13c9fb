// Email verification and password reset, end to end over real SMTP: a local SMTP server
// (smtp-server, with credentials) receives what Larder sends, the test reads the mail, follows
// its link with a real HTTP request against the listening server, and checks the result.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { linkIn, SmtpCapture, startMailCapture, stopMailCapture, type ReceivedMail } from './harness/smtp-capture.ts';
import { assertError, logIn, signUp, uniqueName } from './harness/user-helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

async function setSettings(h: Harness, change: Record<string, unknown>): Promise<void> {
  const res = await h.client.put('/1.1/larder/settings', change, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** Moves the app's clock by `ms` from now on. */
function shiftClock(h: Harness, ms: number): void {
  h.app.clock = () => new Date(Date.now() + ms);
}

function email(): string {
  return `${uniqueName('m')}@example.test`;
}

async function me(h: Harness, session: string) {
  return h.client.get('/1.1/users/me', undefined, { session });
}

/** Submits the reset form as a browser would (form-urlencoded), over a real socket. */
function postForm(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/larder/reset-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

forEachEngine('email without SMTP', (h) => {
  test('the mail endpoints answer 503 code 1 when no SMTP server is configured', async () => {
    for (const path of ['/1.1/requestEmailVerify', '/1.1/requestPasswordReset']) {
      const res = await h().client.post(path, { email: 'nobody@example.test' });
      assertError(res, 503, 1);
      assert.match(res.body.error, /LARDER_SMTP_URL/);
    }
  });

  test('bad input: missing email 204, not an address or not a string 125, not an object 107', async () => {
    for (const path of ['/1.1/requestEmailVerify', '/1.1/requestPasswordReset']) {
      assertError(await h().client.post(path, {}), 400, 204);
      assertError(await h().client.post(path, { email: '' }), 400, 204);
      assertError(await h().client.post(path, { email: 'not-an-address' }), 400, 125);
      assertError(await h().client.post(path, { email: { $ne: '' } }), 400, 125);
      assertError(await h().client.post(path, { email: ['a@b.c'] }), 400, 125);
      assertError(await h().client.post(path, [1]), 400, 107);
    }
  });

  test('with verification on and no SMTP, sign-up still works and emailVerified is false', async () => {
    await setSettings(h(), { emailVerification: true });
    try {
      const u = await signUp(h(), { email: email() });
      assert.equal((await me(h(), u.sessionToken)).body.emailVerified, false);
    } finally {
      await setSettings(h(), { emailVerification: false });
    }
  });

  test('the pages refuse links that are malformed, unknown or missing', async () => {
    const base = await h().listen();
    for (const q of ['', '?token=', '?token=abc', `?token=${'A'.repeat(43)}`, '?token=a&token=b', `?token[$ne]=x`]) {
      const v = await fetch(`${base}/larder/verify-email${q}`);
      assert.equal(v.status, 410, q);
      assert.match(await v.text(), /does not work/);
      assert.equal((await fetch(`${base}/larder/reset-password${q}`)).status, 410, q);
    }
  });
});

forEachEngine('email verification over SMTP', (h) => {
  let smtp: SmtpCapture;
  let base: string;
  before(async () => {
    ({ smtp, base } = await startMailCapture(h()));
    await setSettings(h(), { emailVerification: true });
  });
  after(() => stopMailCapture(h(), smtp));
  beforeEach(() => {
    h().app.clock = undefined;
  });

  async function signUpWithMail(extra: Record<string, unknown> = {}) {
    const address = email();
    const since = smtp.mails.length;
    const u = await signUp(h(), { email: address, ...extra });
    const mail = await smtp.next(address, since);
    return { u, address, mail };
  }

  test('emailVerified: null without email or with the option off; false then true by the link', async () => {
    const noEmail = await signUp(h());
    assert.equal((await me(h(), noEmail.sessionToken)).body.emailVerified, null);

    await setSettings(h(), { emailVerification: false });
    const off = await signUp(h(), { email: email() });
    assert.equal((await me(h(), off.sessionToken)).body.emailVerified, null);
    await setSettings(h(), { emailVerification: true });

    const { u, address, mail } = await signUpWithMail();
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, false);
    assert.equal(mail.from, 'no-reply@larder.test');
    assert.match(mail.subject, /Verify your email address for testAppId-larder/);
    assert.ok(mail.text.includes(`Hello ${u.username}`), mail.text);
    const link = linkIn(mail);
    assert.equal(link.origin, base);
    assert.equal(link.pathname, '/larder/verify-email');
    assert.match(link.searchParams.get('token') ?? '', /^[A-Za-z0-9_-]{43}$/);

    const page = await fetch(link);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<html lang="en">/);
    assert.ok(html.includes(`${address} is now verified`), html);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);

    const login = await logIn(h(), { username: u.username, password: u.password });
    assert.equal(login.body.emailVerified, true);
    // Single use: the same link again fails.
    assert.equal((await fetch(link)).status, 410);
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, true);
  });

  test('changing the email sets emailVerified false, mails the new address, and the old link stops working', async () => {
    const { u, mail: first } = await signUpWithMail();
    assert.equal((await fetch(linkIn(first))).status, 200);
    const second = email();
    const since = smtp.mails.length;
    const put = await h().client.put(`/1.1/users/${u.objectId}`, { email: second }, { session: u.sessionToken });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, false);
    const mail2 = await smtp.next(second, since);

    // A link sent to an address the user no longer has does not verify the new one.
    const third = email();
    const since3 = smtp.mails.length;
    assert.equal((await h().client.put(`/1.1/users/${u.objectId}`, { email: third }, { session: u.sessionToken })).status, 200);
    const mail3 = await smtp.next(third, since3);
    assert.equal((await fetch(linkIn(mail2))).status, 410);
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, false);
    assert.equal((await fetch(linkIn(mail3))).status, 200);
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, true);
  });

  test('requestEmailVerify resends (at most one mail a minute); {} and no mail for unknown or verified addresses', async () => {
    const { u, address, mail } = await signUpWithMail();
    // Within the minute of the sign-up mail: answered, but nothing is sent.
    let since = smtp.mails.length;
    assert.deepEqual((await h().client.post('/1.1/requestEmailVerify', { email: address })).body, {});
    await h().app.mailer?.idle();
    assert.equal(smtp.to(address, since).length, 0);

    shiftClock(h(), 2 * 60 * 1000);
    since = smtp.mails.length;
    const res = await h().client.post('/1.1/requestEmailVerify', { email: address });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {});
    const resent = await smtp.next(address, since);
    assert.notEqual(linkIn(resent).searchParams.get('token'), linkIn(mail).searchParams.get('token'));
    // Either link works; after one is used the other is retired.
    assert.equal((await fetch(linkIn(resent))).status, 200);
    assert.equal((await fetch(linkIn(mail))).status, 410);
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, true);

    // Unknown and already verified addresses: the same answer, no mail.
    shiftClock(h(), 4 * 60 * 1000);
    const unknown = email();
    since = smtp.mails.length;
    const r1 = await h().client.post('/1.1/requestEmailVerify', { email: unknown });
    const r2 = await h().client.post('/1.1/requestEmailVerify', { email: address });
    assert.deepEqual([r1.status, r1.body, r2.status, r2.body], [200, {}, 200, {}]);
    await h().app.mailer?.idle();
    assert.equal(smtp.mails.length, since);
  });

  test('a verification link expires after one week', async () => {
    const { u, mail } = await signUpWithMail();
    shiftClock(h(), 7 * DAY + 60_000);
    assert.equal((await fetch(linkIn(mail))).status, 410);
    h().app.clock = undefined;
    // Still unused and still within its week by the real clock: it works now.
    shiftClock(h(), 7 * DAY - 60_000);
    assert.equal((await fetch(linkIn(mail))).status, 200);
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, true);
  });

  test('the same verification link used five times at once succeeds once', async () => {
    const { u, mail } = await signUpWithMail();
    const statuses = await Promise.all(Array.from({ length: 5 }, () => fetch(linkIn(mail)).then((r) => r.status)));
    assert.deepEqual(statuses.sort(), [200, 410, 410, 410, 410]);
    assert.equal((await me(h(), u.sessionToken)).body.emailVerified, true);
  });

  test('HEAD on a verification link does not use it', async () => {
    const { mail } = await signUpWithMail();
    const head = await fetch(linkIn(mail), { method: 'HEAD' });
    assert.notEqual(head.status, 200);
    assert.equal((await fetch(linkIn(mail))).status, 200);
  });

  test('texts come from the app settings, and a hostile username is escaped on the page', async () => {
    await setSettings(h(), { emailTexts: { appName: 'Pantry <b>', verifyEmailSubject: 'Welcome to {{appName}}', emailVerifiedText: '{{email}} ok for {{appName}}', pageLang: 'de' } });
    try {
      const { mail } = await signUpWithMail({ username: `<script>alert(1)</script>${uniqueName()}` });
      assert.equal(mail.subject, 'Welcome to Pantry <b>');
      assert.ok(mail.text.includes('<script>alert(1)</script>'), 'plain-text mail keeps the name as typed');
      const html = await (await fetch(linkIn(mail))).text();
      assert.match(html, /<html lang="de">/);
      assert.ok(html.includes('ok for Pantry &lt;b&gt;'), html);
      assert.ok(!html.includes('<b>'));
    } finally {
      await setSettings(h(), { emailTexts: null });
    }
  });
});

forEachEngine('password reset over SMTP', (h) => {
  let smtp: SmtpCapture;
  let base: string;
  before(async () => {
    ({ smtp, base } = await startMailCapture(h()));
  });
  after(() => stopMailCapture(h(), smtp));
  beforeEach(() => {
    h().app.clock = undefined;
  });

  async function resetMail(extra: Record<string, unknown> = {}): Promise<{ u: Awaited<ReturnType<typeof signUp>>; address: string; mail: ReceivedMail; token: string }> {
    const address = email();
    const u = await signUp(h(), { email: address, ...extra });
    const since = smtp.mails.length;
    const res = await h().client.post('/1.1/requestPasswordReset', { email: address });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {});
    const mail = await smtp.next(address, since);
    const token = linkIn(mail).searchParams.get('token') ?? '';
    return { u, address, mail, token };
  }

  test('the link shows a form; the new password works, the old one and the old session do not', async () => {
    const { u, mail, token } = await resetMail();
    assert.match(mail.subject, /Reset your password/);
    assert.equal(linkIn(mail).pathname, '/larder/reset-password');

    const form = await fetch(linkIn(mail));
    assert.equal(form.status, 200);
    const html = await form.text();
    assert.match(html, /<form method="post" action="reset-password">/);
    assert.match(html, /<label for="password">New password<\/label>/);
    assert.match(html, /<input id="password" name="password" type="password" autocomplete="new-password" required>/);
    assert.ok(html.includes(`value="${token}"`));
    assert.ok(!/<script/i.test(html));
    // Showing the form does not use the link.
    assert.equal((await fetch(linkIn(mail))).status, 200);

    const differ = await postForm(base, { token, password: 'new-secret', repeat: 'other' });
    assert.equal(differ.status, 400);
    assert.match(await differ.text(), /role="alert">The two passwords differ/);
    const blank = await postForm(base, { token, password: '   ', repeat: '   ' });
    assert.equal(blank.status, 400);

    const done = await postForm(base, { token, password: 'new-secret', repeat: 'new-secret' });
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Password changed/);

    assert.equal((await logIn(h(), { username: u.username, password: 'new-secret' })).status, 200);
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 210);
    // The session token rotated: the old session is gone.
    assertError(await me(h(), u.sessionToken), 400, 211);
    // Single use.
    assert.equal((await fetch(linkIn(mail))).status, 410);
    assert.equal((await postForm(base, { token, password: 'third', repeat: 'third' })).status, 410);
    assert.equal((await logIn(h(), { username: u.username, password: 'third' })).status, 400);
  });

  test('a reset link expires after one hour', async () => {
    const { u, mail, token } = await resetMail();
    shiftClock(h(), 61 * 60 * 1000);
    assert.equal((await fetch(linkIn(mail))).status, 410);
    assert.equal((await postForm(base, { token, password: 'late-pw', repeat: 'late-pw' })).status, 410);
    assert.equal((await logIn(h(), { username: u.username, password: u.password })).status, 200);
  });

  test('the same reset link posted five times at once changes the password once', async () => {
    const { u, token } = await resetMail();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => postForm(base, { token, password: `race-${i}`, repeat: `race-${i}` }).then((r) => r.status)),
    );
    assert.deepEqual([...results].sort(), [200, 410, 410, 410, 410]);
    const winner = results.indexOf(200);
    assert.equal((await logIn(h(), { username: u.username, password: `race-${winner}` })).status, 200);
    for (let i = 0; i < 5; i++) if (i !== winner) assertError(await logIn(h(), { username: u.username, password: `race-${i}` }), 400, 210);
  });

  test('unknown addresses get the same {} and no mail', async () => {
    const since = smtp.mails.length;
    const res = await h().client.post('/1.1/requestPasswordReset', { email: email() });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {});
    await h().app.mailer?.idle();
    assert.equal(smtp.mails.length, since);
  });

  test('a reset releases the login lock', async () => {
    const { u, token } = await resetMail();
    for (let i = 0; i < 7; i++) await logIn(h(), { username: u.username, password: 'wrong' });
    assertError(await logIn(h(), { username: u.username, password: u.password }), 400, 219);
    assert.equal((await postForm(base, { token, password: 'unlocked', repeat: 'unlocked' })).status, 200);
    assert.equal((await logIn(h(), { username: u.username, password: 'unlocked' })).status, 200);
  });

  test('a reset link stops working when the email changes', async () => {
    const { u, mail, token } = await resetMail();
    assert.equal((await h().client.put(`/1.1/users/${u.objectId}`, { email: email() }, { session: u.sessionToken })).status, 200);
    assert.equal((await fetch(linkIn(mail))).status, 410);
    assert.equal((await postForm(base, { token, password: 'changed', repeat: 'changed' })).status, 410);
  });

  test('the form takes only form-urlencoded bodies; a hostile username is escaped', async () => {
    const { mail, token } = await resetMail({ username: `"><img src=x onerror=alert(1)>${uniqueName()}` });
    const html = await (await fetch(linkIn(mail))).text();
    assert.ok(!html.includes('<img'), html);
    assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
    const json = await fetch(`${base}/larder/reset-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'x1', repeat: 'x1' }),
    });
    assert.equal(json.status, 415);
    // The link is still usable after the refused post.
    assert.equal((await postForm(base, { token, password: 'x2', repeat: 'x2' })).status, 200);
  });

  test('at most one reset mail a minute and ten a day per address', async () => {
    const { address } = await resetMail();
    let since = smtp.mails.length;
    await h().client.post('/1.1/requestPasswordReset', { email: address });
    await h().app.mailer?.idle();
    assert.equal(smtp.to(address, since).length, 0);
    for (let i = 1; i <= 10; i++) {
      shiftClock(h(), i * 2 * 60 * 1000);
      await h().client.post('/1.1/requestPasswordReset', { email: address });
      await h().app.mailer?.idle();
    }
    since = 0;
    // The first mail plus nine more make ten in the day; the eleventh request sent nothing.
    assert.equal(smtp.to(address, since).length, 10);
  });
});
