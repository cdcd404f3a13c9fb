// The official JS SDK's follow API and AV.Status inbox against Larder, with the friends service
// switched off and no friend model chosen (spec: leancloud-services.md §5).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { AV, forEachEngineWithSdk, rejectsWithCode } from './sdk.ts';

const PASSWORD = 'pw-status-1';

async function signUp(tag: string): Promise<AV.User> {
  return AV.User.signUp(`st${tag}${Date.now()}${Math.random().toString(36).slice(2, 6)}`, PASSWORD);
}

async function as(user: AV.User): Promise<AV.User> {
  return AV.User.logIn(user.getUsername(), PASSWORD);
}

/** The inbox of the current user, as AV.InboxQuery returns it. */
async function inbox(owner: AV.User, type?: string): Promise<AV.Status[]> {
  return (await AV.Status.inboxQuery(owner, type).find()) as unknown as AV.Status[];
}

forEachEngineWithSdk('e2e follow and statuses (AV.User#follow, AV.Status)', (h) => {
  let alice: AV.User;
  let bob: AV.User;
  let carol: AV.User;

  before(async () => {
    const settings = await h().client.get('/1.1/larder/settings', undefined, { master: true });
    assert.equal(settings.body.richPresenceSync, false);
    assert.equal(settings.body.friendModel, '');
    alice = await signUp('a');
    bob = await signUp('b');
    carol = await signUp('c');
  });

  test('follow, followers, followees and unfollow without the friends switch', async () => {
    bob = await as(bob);
    await bob.follow(alice.id as string);
    carol = await as(carol);
    await carol.follow({ user: alice, attributes: { group: 'fans' } } as unknown as AV.User);
    // Rows are shared between the two users (friendshipACL "shared"): carol sees her own follow of
    // alice, alice sees all of her followers.
    assert.deepEqual((await AV.User.followerQuery(alice.id as string).find()).map((u) => u.id), [carol.id]);
    alice = await as(alice);
    const followers = await AV.User.followerQuery(alice.id as string).find();
    assert.deepEqual(followers.map((u) => u.id).sort(), [bob.id, carol.id].sort());
    carol = await as(carol);
    const followees = await AV.User.followeeQuery(carol.id as string).find();
    assert.deepEqual(followees.map((u) => u.id), [alice.id]);
    const both = await (carol as unknown as { getFollowersAndFollowees(): Promise<{ followers: AV.User[]; followees: AV.User[] }> }).getFollowersAndFollowees();
    assert.deepEqual(both.followees.map((u) => u.id), [alice.id]);
    assert.deepEqual(both.followers, []);
    await carol.unfollow(alice.id as string);
    assert.deepEqual((await AV.User.followeeQuery(carol.id as string).find()).map((u) => u.id), []);
    await carol.follow(alice.id as string);
  });

  test('a status goes to the followers inboxes; unread counts and reset', async () => {
    alice = await as(alice);
    const status = new AV.Status('http://example.com/a.png', 'hello followers');
    status.set('mood', 'happy');
    await status.send();
    assert.ok(status.id);
    bob = await as(bob);
    const got = await inbox(bob);
    assert.equal(got.length, 1);
    assert.equal(got[0].id, status.id);
    assert.equal(got[0].get('message'), 'hello followers');
    assert.equal(got[0].get('image'), 'http://example.com/a.png');
    assert.equal(got[0].get('mood'), 'happy');
    assert.equal((got[0].get('source') as AV.User).id, alice.id);
    assert.equal(typeof (got[0] as unknown as { messageId: number }).messageId, 'number');
    assert.deepEqual(await AV.Status.countUnreadStatuses(bob), { total: 1, unread: 1 } as unknown);
    await AV.Status.resetUnreadCount(bob);
    assert.deepEqual(await AV.Status.countUnreadStatuses(bob), { total: 1, unread: 0 } as unknown);
    // The sender's own inbox stays empty; another user's inbox is not readable.
    alice = await as(alice);
    assert.deepEqual(await inbox(alice), []);
    await rejectsWithCode(AV.Status.inboxQuery(bob).find(), 1);
  });

  test('private statuses, paging by messageId, where on status fields, destroy', async () => {
    alice = await as(alice);
    const secret = new AV.Status(null, 'just for carol');
    await AV.Status.sendPrivateStatus(secret, carol.id as string);
    const second = new AV.Status(null, 'to all');
    await second.send();
    carol = await as(carol);
    const priv = await inbox(carol, 'private');
    assert.deepEqual(priv.map((s) => s.get('message')), ['just for carol']);
    const all = await inbox(carol);
    assert.deepEqual(all.map((s) => s.get('message')), ['to all', 'hello followers']);
    const newest = (all[0] as unknown as { messageId: number }).messageId;
    const older = await AV.Status.inboxQuery(carol).maxId(newest - 1).find();
    assert.deepEqual(older.map((s) => s.get('message')), ['hello followers']);
    const newer = await AV.Status.inboxQuery(carol).sinceId(newest - 1).find();
    assert.deepEqual(newer.map((s) => s.get('message')), ['to all']);
    const filtered = await AV.Status.inboxQuery(carol).equalTo('mood', 'happy').find();
    assert.deepEqual(filtered.map((s) => s.get('message')), ['hello followers']);
    // Statuses are objects of _Status: statusQuery finds a user's statuses.
    const sent = await AV.Status.statusQuery(alice).find();
    assert.equal(sent.length, 3);
    // Only the sender deletes a status; it leaves every inbox.
    await rejectsWithCode((all[0] as AV.Status).destroy(), 1);
    alice = await as(alice);
    await second.destroy();
    carol = await as(carol);
    assert.deepEqual((await inbox(carol)).map((s) => s.get('message')), ['hello followers']);
  });
});
