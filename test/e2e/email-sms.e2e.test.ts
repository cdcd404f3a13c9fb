// The mail and SMS flows through the official SDK: mails go over real SMTP to a local server and
// their links are followed over HTTP; SMS codes reach the app's pluggable sender.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { linkIn, SmtpCapture, startMailCapture, stopMailCapture } from '../integration/harness/smtp-capture.ts';
import { CapturingSmsSender, newPhone } from '../integration/harness/sms-capture.ts';
import { AV, forEachEngineWithSdk, rejectsWithCode } from './sdk.ts';

function name(): string {
  return `e2e${randomBytes(5).toString('hex')}`;
}

forEachEngineWithSdk('e2e email and sms', (h) => {
  let smtp: SmtpCapture;
  let base: string;
  let sms: CapturingSmsSender;
  before(async () => {
    ({ smtp, base } = await startMailCapture(h()));
    await AV.User.logOut();
  });
  after(() => stopMailCapture(h(), smtp));
  beforeEach(async () => {
    sms = new CapturingSmsSender();
    h().app.smsSender = sms;
    h().app.scope.replaceSettings({ ...h().app.settings, emailVerification: false });
    await AV.User.logOut();
  });

  test('AV.User.requestEmailVerify: the mailed link verifies the address', async () => {
    h().app.scope.replaceSettings({ ...h().app.settings, emailVerification: true });
    const email = `${name()}@example.test`;
    const user = new AV.User();
    user.setUsername(name());
    user.setPassword('pw-e2e');
    user.setEmail(email);
    let since = smtp.mails.length;
    await user.signUp();
    assert.equal(user.get('emailVerified'), false);
    await smtp.next(email, since);
    // A resend a minute later (the clock moved) brings a fresh link.
    h().app.clock = () => new Date(Date.now() + 2 * 60_000);
    since = smtp.mails.length;
    try {
      await AV.User.requestEmailVerify(email);
      const mail = await smtp.next(email, since);
      assert.equal((await fetch(linkIn(mail))).status, 200);
    } finally {
      h().app.clock = undefined;
    }
    await user.fetch();
    assert.equal(user.get('emailVerified'), true);
  });

  test('AV.User.requestPasswordReset: the mailed form sets a new password', async () => {
    const email = `${name()}@example.test`;
    const username = name();
    await AV.User.signUp(username, 'old-pw', { email });
    await AV.User.logOut();
    const since = smtp.mails.length;
    await AV.User.requestPasswordReset(email);
    const link = linkIn(await smtp.next(email, since));
    const res = await fetch(`${base}/larder/reset-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: link.searchParams.get('token') ?? '', password: 'new-pw', repeat: 'new-pw' }).toString(),
    });
    assert.equal(res.status, 200);
    const user = await AV.User.logIn(username, 'new-pw');
    assert.equal(user.getEmail(), email);
    await rejectsWithCode(AV.User.logIn(username, 'old-pw'), 210);
  });

  test('AV.Cloud.requestSmsCode + AV.User.signUpOrlogInWithMobilePhone; AV.Cloud.verifySmsCode', async () => {
    const phone = newPhone();
    await AV.Cloud.requestSmsCode(phone);
    await rejectsWithCode(AV.User.signUpOrlogInWithMobilePhone(phone, '000000x'), 603);
    const user = await AV.User.signUpOrlogInWithMobilePhone(phone, sms.lastCode(phone));
    assert.equal(user.getUsername(), phone);
    assert.equal(user.getMobilePhoneNumber(), phone);
    assert.equal(user.get('mobilePhoneVerified'), true);
    assert.match(user.getSessionToken(), /^[a-z0-9]{25}$/);
    assert.equal((await AV.User.currentAsync())?.id, user.id);

    const other = newPhone();
    // Template variables ride along as extra parameters (the SDK's typings do not list them).
    const withVariables = { mobilePhoneNumber: other, name: 'Pantry', op: 'confirm' };
    await AV.Cloud.requestSmsCode(withVariables);
    assert.deepEqual(sms.to(other)[0].variables, { name: 'Pantry', op: 'confirm' });
    await AV.Cloud.verifySmsCode(sms.lastCode(other), other);
    await rejectsWithCode(AV.Cloud.verifySmsCode(sms.lastCode(other), other), 603);
  });

  test('AV.User.requestLoginSmsCode + AV.User.logInWithMobilePhoneSmsCode', async () => {
    const phone = newPhone();
    const username = name();
    await AV.User.signUp(username, 'pw-login', { mobilePhoneNumber: phone });
    await AV.User.logOut();
    await AV.User.requestLoginSmsCode(phone);
    const user = await AV.User.logInWithMobilePhoneSmsCode(phone, sms.lastCode(phone));
    assert.equal(user.getUsername(), username);
    await AV.User.logOut();
    await rejectsWithCode(AV.User.logInWithMobilePhoneSmsCode(phone, sms.lastCode(phone)), 603);
  });

  test('AV.User.requestPasswordResetBySmsCode + AV.User.resetPasswordBySmsCode', async () => {
    const phone = newPhone();
    const username = name();
    await AV.User.signUp(username, 'pw-before', { mobilePhoneNumber: phone });
    await AV.User.logOut();
    await AV.User.requestPasswordResetBySmsCode(phone);
    await AV.User.resetPasswordBySmsCode(sms.lastCode(phone), 'pw-after');
    await rejectsWithCode(AV.User.logIn(username, 'pw-before'), 210);
    const user = await AV.User.logInWithMobilePhone(phone, 'pw-after');
    assert.equal(user.getUsername(), username);
  });

  test('AV.User.requestMobilePhoneVerify + AV.User.verifyMobilePhone', async () => {
    const phone = newPhone();
    const user = await AV.User.signUp(name(), 'pw-verify', { mobilePhoneNumber: phone });
    assert.equal(user.get('mobilePhoneVerified'), false);
    await AV.User.requestMobilePhoneVerify(phone);
    await AV.User.verifyMobilePhone(sms.lastCode(phone));
    await user.fetch();
    assert.equal(user.get('mobilePhoneVerified'), true);
  });
});
