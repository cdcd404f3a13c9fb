// The _User hooks of a real LeanEngine app (onLogin, onAuthData, onVerified) driven through the
// official SDK: a refused login, authData replaced by the hook, verification hooks after commit.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { forEachEngineWithCloud, type CloudHarness } from '../integration/harness/engine-app.ts';
import { CapturingSmsSender, newPhone } from '../integration/harness/sms-capture.ts';
import { linkIn, startMailCapture, stopMailCapture, type SmtpCapture } from '../integration/harness/smtp-capture.ts';
import { AV, pointSdkAt, rejectsWithCode } from './sdk.ts';

const name = () => `uh${randomBytes(5).toString('hex')}`;

/** Waits until the engine app logged a hook call matching `where` (after-hooks are not awaited). */
export async function hookLog(h: CloudHarness, where: Record<string, unknown>, timeoutMs = 20_000): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await h.client.get('/1.1/classes/HookLog', { where }, { master: true });
    const rows = (res.body as { results?: Record<string, unknown>[] }).results ?? [];
    if (rows.length || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}

forEachEngineWithCloud('e2e cloud user hooks', (h) => {
  const sms = new CapturingSmsSender();
  let smtp: SmtpCapture;
  before(async () => {
    h().app.smsSender = sms;
    ({ smtp } = await startMailCapture(h()));
    pointSdkAt(h().larderUrl);
    await AV.User.logOut();
  });
  after(() => stopMailCapture(h(), smtp));

  test('onLogin: a user the hook refuses cannot log in (142); the others can', async () => {
    const username = name();
    const user = await AV.User.signUp(username, 'pw-login');
    await AV.User.logOut();
    assert.equal((await AV.User.logIn(username, 'pw-login')).id, user.id);
    await h().client.put(`/1.1/users/${user.id}`, { banned: true }, { master: true });
    await AV.User.logOut();
    const err = await rejectsWithCode(AV.User.logIn(username, 'pw-login'), 142);
    assert.match(err.message, /Cloud Code validation failed\. Error detail : banned users may not log in/);
  });

  test('onAuthData: its answer replaces the authData that is stored; its error refuses the login', async () => {
    const uid = randomBytes(6).toString('hex');
    const user = await AV.User.loginWithAuthData({ uid, access_token: 'ok' }, 'demo');
    const stored = await h().client.get(`/1.1/users/${user.id}`, {}, { master: true });
    const authData = (stored.body as { authData: { demo: Record<string, unknown> } }).authData;
    assert.equal(authData.demo.uid, uid);
    assert.equal(authData.demo.checked, true);
    await AV.User.logOut();
    await rejectsWithCode(AV.User.loginWithAuthData({ uid: randomBytes(6).toString('hex'), access_token: 'refused' }, 'demo'), 142);
  });

  test('onVerified/sms runs after a phone number was verified', async () => {
    const phone = newPhone();
    const user = await AV.User.signUp(name(), 'pw-verify', { mobilePhoneNumber: phone });
    await AV.User.requestMobilePhoneVerify(phone);
    await AV.User.verifyMobilePhone(sms.lastCode(phone));
    const rows = await hookLog(h(), { hook: 'onVerified/sms', target: user.id });
    assert.equal(rows.length, 1);
  });

  test('onVerified/email runs after the mailed link verified the address', async () => {
    h().app.scope.replaceSettings({ ...h().app.settings, emailVerification: true });
    try {
      const email = `${name()}@example.test`;
      const since = smtp.mails.length;
      const user = await AV.User.signUp(name(), 'pw-verify', { email });
      assert.equal((await hookLog(h(), { hook: 'onVerified/email', target: user.id }, 500)).length, 0, 'not before the link is followed');
      const mail = await smtp.next(email, since);
      assert.equal((await fetch(linkIn(mail))).status, 200);
      const rows = await hookLog(h(), { hook: 'onVerified/email', target: user.id });
      assert.equal(rows.length, 1);
    } finally {
      h().app.scope.replaceSettings({ ...h().app.settings, emailVerification: false });
    }
  });
});
