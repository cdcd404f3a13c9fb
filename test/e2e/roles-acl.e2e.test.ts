// Roles with inheritance and ACL enforcement between two users, through the official JS SDK.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { AV, forEachEngineWithSdk, rejectsWithCode } from './sdk.ts';

const master = { useMasterKey: true } as AV.AuthOptions;

async function signUp(prefix: string): Promise<AV.User> {
  const u = new AV.User();
  u.setUsername(`${prefix}_${randomBytes(4).toString('hex')}`);
  u.setPassword('pw-123456');
  await u.signUp();
  return u;
}

function as(user: AV.User): AV.AuthOptions {
  return { sessionToken: user.getSessionToken() } as AV.AuthOptions;
}

forEachEngineWithSdk('e2e roles and ACL', () => {
  let alice: AV.User;
  let bob: AV.User;
  before(async () => {
    alice = await signUp('alice');
    bob = await signUp('bob');
    await AV.User.logOut();
  });

  test('an object with a private ACL: the owner reads and writes, another user neither', async () => {
    const note = new AV.Object('E2eNote');
    note.set('text', 'for alice only');
    const acl = new AV.ACL();
    acl.setReadAccess(alice, true);
    acl.setWriteAccess(alice, true);
    note.setACL(acl);
    await note.save(null, as(alice));

    const mine = await new AV.Query('E2eNote').get(note.id!, as(alice));
    assert.equal(mine.get('text'), 'for alice only');
    const theirs = await new AV.Query('E2eNote').find(as(bob));
    assert.deepEqual(theirs, []);
    assert.equal(await new AV.Query('E2eNote').count(as(bob)), 0);

    const attempt = AV.Object.createWithoutData('E2eNote', note.id!);
    attempt.set('text', 'bob was here');
    const err = await rejectsWithCode(attempt.save(null, as(bob)), 1);
    assert.match(err.message, /Forbidden writing by object's ACL/);
    await rejectsWithCode(AV.Object.createWithoutData('E2eNote', note.id!).destroy(as(bob)), 1);
    assert.equal((await new AV.Query('E2eNote').get(note.id!, master)).get('text'), 'for alice only');
  });

  test('roles with inheritance: a user of a child role holds the parent role', async () => {
    const roleAcl = new AV.ACL();
    roleAcl.setPublicReadAccess(true);
    const mods = new AV.Role(`Mods_${randomBytes(3).toString('hex')}`, roleAcl);
    mods.getUsers().add(bob);
    await mods.save(null, master);
    const admins = new AV.Role(`Admins_${randomBytes(3).toString('hex')}`, roleAcl);
    admins.getRoles().add(mods);
    await admins.save(null, master);

    const secret = new AV.Object('E2eBoard');
    secret.set('topic', 'admins only');
    const acl = new AV.ACL();
    acl.setRoleReadAccess(admins, true);
    secret.setACL(acl);
    await secret.save(null, master);

    const seen = await new AV.Query('E2eBoard').find(as(bob));
    assert.deepEqual(seen.map((o) => o.get('topic')), ['admins only']);
    assert.deepEqual(await new AV.Query('E2eBoard').find(as(alice)), []);

    // The SDK's relation queries: roles of a user, users of a role.
    const bobsRoles = await new AV.Query(AV.Role).equalTo('users', bob).find(as(bob));
    assert.deepEqual(bobsRoles.map((r) => (r as AV.Role).getName()), [mods.getName()]);
    const members = await mods.getUsers().query().find(master);
    assert.deepEqual(members.map((u) => u.id), [bob.id]);
    const fetched = await new AV.Query(AV.Role).get(admins.id!, as(alice));
    assert.equal((fetched as AV.Role).getName(), admins.getName());
  });

  test('a user cannot add itself to a role it cannot write; the role name cannot change', async () => {
    const acl = new AV.ACL();
    acl.setPublicReadAccess(true);
    acl.setWriteAccess(alice, true);
    const staff = new AV.Role(`Staff_${randomBytes(3).toString('hex')}`, acl);
    await staff.save(null, as(alice));

    const sneaky = AV.Object.createWithoutData('_Role', staff.id!) as AV.Role;
    sneaky.relation('users').add(bob);
    await rejectsWithCode(sneaky.save(null, as(bob)), 1);
    assert.deepEqual(await staff.getUsers().query().find(master), []);

    staff.getUsers().add(bob);
    await staff.save(null, as(alice));
    assert.deepEqual((await staff.getUsers().query().find(master)).map((u) => u.id), [bob.id]);

    const renamed = AV.Object.createWithoutData('_Role', staff.id!);
    renamed.set('name', 'Other');
    await rejectsWithCode(renamed.save(null, master), 117);
  });

  test('role creation without an ACL is refused with the documented error', async () => {
    const role = new AV.Object('_Role');
    role.set('name', `NoAcl_${randomBytes(3).toString('hex')}`);
    const err = await rejectsWithCode(role.save(null, master), 1);
    assert.match(err.message, /Role ACL is required/);
  });
});
