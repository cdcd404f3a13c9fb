// Users through the official JS SDK: sign-up, the logins, become, updatePassword,
// refreshSessionToken, authData login / associate / dissociate, anonymous login and upgrade,
// and the AV.Error codes of failed logins.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { AV, forEachEngineWithSdk, rejectsWithCode } from './sdk.ts';

const name = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;

interface WithUpdatePassword {
  updatePassword(oldPassword: string, newPassword: string): Promise<unknown>;
}

async function signedUp(attrs: Record<string, unknown> = {}): Promise<{ user: AV.User; username: string; password: string }> {
  const username = name('e2e');
  const password = `pw-${randomBytes(4).toString('hex')}`;
  const user = new AV.User();
  user.setUsername(username);
  user.setPassword(password);
  user.set(attrs);
  await user.signUp();
  return { user, username, password };
}

forEachEngineWithSdk('e2e users', () => {
  test('signUp makes the current user with a session token; logIn by username and by email', async () => {
    const email = `${name('mail')}@example.com`;
    const { user, username, password } = await signedUp({ email, city: 'Paris' });
    assert.match(user.id ?? '', /^[0-9a-f]{24}$/);
    assert.match(user.getSessionToken(), /^[a-z0-9]{25}$/);
    assert.equal(AV.User.current()?.id, user.id);
    await AV.User.logOut();
    const byName = await AV.User.logIn(username, password);
    assert.equal(byName.id, user.id);
    assert.equal(byName.get('city'), 'Paris');
    assert.equal(byName.get('password'), undefined);
    const byEmail = await AV.User.loginWithEmail(email, password);
    assert.equal(byEmail.id, user.id);
    assert.equal(byEmail.getSessionToken(), user.getSessionToken());
  });

  test('failed logins reject with the server code: 210 wrong password, 211 unknown user, 202 taken name', async () => {
    const { username } = await signedUp();
    await rejectsWithCode(AV.User.logIn(username, 'wrong'), 210);
    await rejectsWithCode(AV.User.logIn(name('ghost'), 'x'), 211);
    await rejectsWithCode(AV.User.signUp(username, 'again'), 202);
  });

  test('become restores a user from its session token; a stale token is 211', async () => {
    const { user } = await signedUp({ level: 3 });
    const token = user.getSessionToken();
    await AV.User.logOut();
    const again = await AV.User.become(token);
    assert.equal(again.id, user.id);
    assert.equal(again.get('level'), 3);
    assert.equal(AV.User.current()?.id, user.id);
    await rejectsWithCode(AV.User.become('qmdj8pdidnmyzp0c7yqil91oc'), 211);
  });

  test('updatePassword rotates the token; the new password logs in, the old token is dead', async () => {
    const { user, username, password } = await signedUp();
    const oldToken = user.getSessionToken();
    await (user as unknown as WithUpdatePassword).updatePassword(password, 'brand-new');
    assert.notEqual(user.getSessionToken(), oldToken);
    await rejectsWithCode(AV.User.become(oldToken), 211);
    await rejectsWithCode(AV.User.logIn(username, password), 210);
    assert.equal((await AV.User.logIn(username, 'brand-new')).id, user.id);
    await rejectsWithCode((user as unknown as WithUpdatePassword).updatePassword('not-it', 'x'), 210);
  });

  test('refreshSessionToken gives a new token and kills the old one', async () => {
    const { user } = await signedUp();
    const oldToken = user.getSessionToken();
    await user.refreshSessionToken();
    const newToken = user.getSessionToken();
    assert.match(newToken, /^[a-z0-9]{25}$/);
    assert.notEqual(newToken, oldToken);
    await rejectsWithCode(AV.User.become(oldToken), 211);
    assert.equal((await AV.User.become(newToken)).id, user.id);
  });

  test('loginWithAuthData signs up once, then logs the same user in; failOnNotExist is 211', async () => {
    const authData = { uid: name('gh'), access_token: 'token' };
    await rejectsWithCode(AV.User.loginWithAuthData(authData, 'github', { failOnNotExist: true }), 211);
    const first = await AV.User.loginWithAuthData(authData, 'github');
    assert.match(first.get('username'), /^[a-z0-9]{25}$/);
    assert.deepEqual(first.get('authData'), { github: authData });
    const second = await AV.User.loginWithAuthData(authData, 'github', { failOnNotExist: true });
    assert.equal(second.id, first.id);
  });

  test('associateWithAuthData merges a platform; dissociateAuthData removes it; 208 for a taken account', async () => {
    const { user } = await signedUp();
    const weixin = { uid: name('wx'), access_token: 't' };
    const qq = { uid: name('qq'), access_token: 't' };
    await user.associateWithAuthData(weixin, 'weixin');
    await user.associateWithAuthData(qq, 'qq');
    assert.deepEqual(Object.keys(user.get('authData')).sort(), ['qq', 'weixin']);
    assert.equal((await AV.User.loginWithAuthData(weixin, 'weixin')).id, user.id);
    const current = AV.User.current();
    await current.dissociateAuthData('weixin');
    const fetched = await AV.User.become(current.getSessionToken());
    assert.deepEqual(Object.keys(fetched.get('authData')), ['qq']);
    const other = await signedUp();
    await rejectsWithCode(other.user.associateWithAuthData(qq, 'qq'), 208);
  });

  test('loginAnonymously, then signUp upgrades the same user: no longer anonymous, logs in by name', async () => {
    const anon = await AV.User.loginAnonymously();
    assert.equal(anon.isAnonymous(), true);
    assert.ok(anon.get('authData').anonymous.id);
    const username = name('upgraded');
    anon.setUsername(username);
    anon.setPassword('pw');
    await anon.signUp();
    assert.equal(anon.isAnonymous(), false);
    const again = await AV.User.logIn(username, 'pw');
    assert.equal(again.id, anon.id);
    assert.equal(again.isAnonymous(), false);
    assert.equal(again.get('authData')?.anonymous, undefined);
  });

  test('anonymous login twice with one id is one user; the installation keeps its account', async () => {
    const id = randomUUID().replace(/-/g, '');
    const a = await AV.User.loginWithAuthData({ id }, 'anonymous');
    const b = await AV.User.loginWithAuthData({ id }, 'anonymous');
    assert.equal(a.id, b.id);
  });
});
