// AV.User.requestChangePhoneNumber + AV.User.changePhoneNumber (JS SDK >= 4.7.0) against Larder:
// the code reaches the app's SMS sender, the SDK sends the current user's session, and the
// user ends up with the new number, verified.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, test } from 'node:test';
import { CapturingSmsSender, newPhone } from '../integration/harness/sms-capture.ts';
import { AV, forEachEngineWithSdk, rejectsWithCode } from './sdk.ts';

forEachEngineWithSdk('e2e change phone number', (h) => {
  let sms: CapturingSmsSender;
  beforeEach(async () => {
    sms = new CapturingSmsSender();
    h().app.smsSender = sms;
    h().app.clock = undefined;
    await AV.User.logOut();
  });

  test('requestChangePhoneNumber then changePhoneNumber: the new number, verified', async () => {
    const old = newPhone();
    const user = await AV.User.signUp(`e2e${randomBytes(5).toString('hex')}`, 'pw-change', { mobilePhoneNumber: old });
    const phone = newPhone();
    await AV.User.requestChangePhoneNumber(phone);
    assert.equal(sms.to(old).length, 0);
    const code = sms.lastCode(phone);
    await rejectsWithCode(AV.User.changePhoneNumber(phone, code === '000000' ? '000001' : '000000'), 603);
    await AV.User.changePhoneNumber(phone, code);
    await user.fetch();
    assert.equal(user.getMobilePhoneNumber(), phone);
    assert.equal(user.get('mobilePhoneVerified'), true);
    // The new number logs in by SMS (a minute later: one code a minute per number).
    h().app.clock = () => new Date(Date.now() + 61_000);
    await AV.User.requestLoginSmsCode(phone);
    const again = await AV.User.logInWithMobilePhoneSmsCode(phone, sms.lastCode(phone));
    assert.equal(again.id, user.id);
  });

  test('a number another user has is 214; without a logged-in user 206', async () => {
    const taken = newPhone();
    await AV.User.signUp(`e2e${randomBytes(5).toString('hex')}`, 'pw-a', { mobilePhoneNumber: taken });
    await AV.User.signUp(`e2e${randomBytes(5).toString('hex')}`, 'pw-b');
    await rejectsWithCode(AV.User.requestChangePhoneNumber(taken), 214);
    await AV.User.logOut();
    await rejectsWithCode(AV.User.requestChangePhoneNumber(newPhone()), 206);
    assert.equal(sms.sent.length, 0);
  });
});
