/**
 * LiveQuery with the official JS SDK for writes outside the plain object path: the server's own
 * `_User` changes (token rotation, password change and reset, phone and email verification, phone change),
 * relation members added and removed, and class permissions changed after subscribing. On
 * every engine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { closeLiveQuerySdk, liveQuerySdk, recordEvents, type AVNamespace, type LiveEvent } from './harness/livequery-sdk.ts';
import { CapturingSmsSender, newPhone } from './harness/sms-capture.ts';
import { linkIn, startMailCapture, stopMailCapture } from './harness/smtp-capture.ts';
import { signUp } from './harness/user-helpers.ts';

const PUBLIC = { '*': { read: true, write: true } };
const HIDDEN = ['password', 'sessionToken', 'authData', 'salt', 'mobilePhoneNumber', 'email'];
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

function assertNothingHidden(e: LiveEvent): void {
  for (const k of HIDDEN) assert.equal(e.object[k], undefined, `${k} travelled`);
  for (const k of e.updatedKeys ?? []) assert.ok(!HIDDEN.includes(k), `updatedKeys names ${k}`);
}

forEachEngine('livequery: internal user changes, relations, permission changes (JS SDK)', (h) => {
  let AV: AVNamespace;
  const sms = new CapturingSmsSender();

  before(async () => {
    AV = liveQuerySdk(await h().listen());
    h().app.smsSender = sms;
    const open = await h().client.put('/1.1/larder/classes/_User/permissions', { find: { onlySignInUsers: true } }, { master: true });
    assert.equal(open.status, 200, JSON.stringify(open.body));
  });
  after(async () => {
    h().app.clock = undefined;
    await closeLiveQuerySdk(AV);
  });

  test("the server's own _User writes reach subscribers as updates (and enters), hidden fields left out", async () => {
    const c = h().client;
    const phone = newPhone();
    const u = await signUp(h(), { mobilePhoneNumber: phone, nickname: 'watched' });
    const watcher = await signUp(h());
    await AV.User.become(watcher.sessionToken);
    const live = await new AV.Query('_User').equalTo('nickname', 'watched').subscribe();
    const rec = recordEvents(live);
    const verified = await new AV.Query('_User').equalTo('mobilePhoneVerified', true).equalTo('nickname', 'watched').subscribe();
    const recV = recordEvents(verified);

    const refreshed = await c.put(`/1.1/users/${u.objectId}/refreshSessionToken`, {}, { session: u.sessionToken });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const e1 = await rec.next((e) => e.op === 'update');
    assert.equal(e1.object.objectId, u.objectId);
    assert.equal(e1.object.updatedAt, refreshed.body.updatedAt);
    assert.deepEqual(e1.updatedKeys, [], 'a token rotation changes nothing a subscriber may read');
    assertNothingHidden(e1);

    const changed = await c.put(`/1.1/users/${u.objectId}/updatePassword`, { old_password: u.password, new_password: 'pw-new-1' }, { session: refreshed.body.sessionToken });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assertNothingHidden(await rec.next((e) => e.op === 'update'));

    assert.equal((await c.post('/1.1/requestMobilePhoneVerify', { mobilePhoneNumber: phone })).status, 200);
    const v = await c.post(`/1.1/verifyMobilePhone/${sms.lastCode(phone)}`, { mobilePhoneNumber: phone });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const e3 = await rec.next((e) => e.op === 'update');
    assert.deepEqual(e3.updatedKeys, ['mobilePhoneVerified']);
    assert.equal(e3.object.mobilePhoneVerified, true);
    const entered = await recV.next((e) => e.op === 'enter');
    assert.equal(entered.object.objectId, u.objectId);
    assert.deepEqual(entered.updatedKeys, ['mobilePhoneVerified']);

    // One code per number and minute: the reset's code is asked for two minutes later.
    h().app.clock = () => new Date(Date.now() + 120_000);
    assert.equal((await c.post('/1.1/requestPasswordResetBySmsCode', { mobilePhoneNumber: phone })).status, 200);
    const reset = await c.put(`/1.1/resetPasswordBySmsCode/${sms.lastCode(phone)}`, { password: 'pw-reset-1', mobilePhoneNumber: phone });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assertNothingHidden(await rec.next((e) => e.op === 'update'));

    const login = await c.post('/1.1/login', { username: u.username, password: 'pw-reset-1' });
    assert.equal(login.status, 200);
    assertNothingHidden(await rec.next((e) => e.op === 'login'));
    const newPhoneNumber = newPhone();
    assert.equal((await c.post('/1.1/requestChangePhoneNumber', { mobilePhoneNumber: newPhoneNumber }, { session: login.body.sessionToken })).status, 200);
    const moved = await c.post('/1.1/changePhoneNumber', { mobilePhoneNumber: newPhoneNumber, code: sms.lastCode(newPhoneNumber) }, { session: login.body.sessionToken });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const e5 = await rec.next((e) => e.op === 'update');
    assert.deepEqual(e5.updatedKeys, ['mobilePhoneVerified'], 'the number itself is client-invisible');
    assertNothingHidden(e5);

    await quiet(300);
    assert.deepEqual(rec.events, [], 'one event per change');
    await live.unsubscribe();
    await verified.unsubscribe();
    await AV.User.logOut();
  });

  test('AddRelation and RemoveRelation are updates of the owner, with the relation key', async () => {
    const c = h().client;
    const member = await c.post('/1.1/classes/LqMember', { n: 1, ACL: PUBLIC });
    const owner = await c.post('/1.1/classes/LqOwner', { name: 'o', ACL: PUBLIC });
    assert.equal(owner.status, 201);
    const live = await new AV.Query('LqOwner').equalTo('name', 'o').subscribe();
    const rec = recordEvents(live);
    const ref = { __type: 'Pointer', className: 'LqMember', objectId: member.body.objectId };
    const added = await c.put(`/1.1/classes/LqOwner/${owner.body.objectId}`, { members: { __op: 'AddRelation', objects: [ref] } });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const e1 = await rec.next((e) => e.op === 'update');
    assert.deepEqual(e1.updatedKeys, ['members']);
    assert.deepEqual(e1.object.members, { __type: 'Relation', className: 'LqMember' });
    const removed = await c.put(`/1.1/classes/LqOwner/${owner.body.objectId}`, { members: { __op: 'RemoveRelation', objects: [ref] } });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.deepEqual((await rec.next((e) => e.op === 'update')).updatedKeys, ['members']);
    await live.unsubscribe();
  });

  test('a class permission changed after subscribing applies from the next event on', async () => {
    const c = h().client;
    const me = await signUp(h());
    const other = await signUp(h());
    await AV.User.become(me.sessionToken);
    const live = await new AV.Query('LqClp').equalTo('tag', 't').subscribe();
    const rec = recordEvents(live);
    await c.post('/1.1/classes/LqClp', { tag: 't', n: 1, ACL: PUBLIC });
    await rec.next((e) => e.op === 'create');

    const closed = await c.put('/1.1/larder/classes/LqClp/permissions', { find: { users: [other.objectId] } }, { master: true });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    await c.post('/1.1/classes/LqClp', { tag: 't', n: 2, ACL: PUBLIC }, { master: true });
    await quiet(500);
    assert.deepEqual(rec.events, [], 'no find permission, no events');

    const reopened = await c.put('/1.1/larder/classes/LqClp/permissions', { find: { '*': true } }, { master: true });
    assert.equal(reopened.status, 200, JSON.stringify(reopened.body));
    await c.post('/1.1/classes/LqClp', { tag: 't', n: 3, ACL: PUBLIC }, { master: true });
    assert.equal((await rec.next((e) => e.op === 'create')).object.n, 3);
    await live.unsubscribe();
    await AV.User.logOut();
  });

  test('following an email verification link is an update with emailVerified, the address left out', async () => {
    const c = h().client;
    const { smtp } = await startMailCapture(h());
    try {
      assert.equal((await c.put('/1.1/larder/settings', { emailVerification: true }, { master: true })).status, 200);
      const watcher = await signUp(h());
      await AV.User.become(watcher.sessionToken);
      const live = await new AV.Query('_User').equalTo('nickname', 'mailed').subscribe();
      const rec = recordEvents(live);
      const address = `lq-${Date.now()}@larder.test`;
      const since = smtp.mails.length;
      const u = await signUp(h(), { email: address, nickname: 'mailed' });
      assert.equal((await rec.next((e) => e.op === 'create')).object.emailVerified, false);
      const page = await fetch(linkIn(await smtp.next(address, since)));
      assert.equal(page.status, 200);
      const e = await rec.next((x) => x.op === 'update');
      assert.equal(e.object.objectId, u.objectId);
      assert.equal(e.object.emailVerified, true);
      assert.deepEqual(e.updatedKeys, ['emailVerified']);
      assertNothingHidden(e);
      await live.unsubscribe();
      await AV.User.logOut();
    } finally {
      await c.put('/1.1/larder/settings', { emailVerification: false }, { master: true });
      await stopMailCapture(h(), smtp);
    }
  });
});
