// Object CRUD through the official JS SDK: every data type, pointers with include, files saved
// by URL, relations, ACLs, fetchWhenSave, conditional saves and the batch helpers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AV, forEachEngineWithSdk, pluck, rejectsWithCode, saved } from './sdk.ts';

const BYTES = { __type: 'Bytes', base64: 'aGVsbG8gd29ybGQ=' };

forEachEngineWithSdk('e2e objects', (h) => {
  test('save and fetch every data type', async () => {
    const person = await saved('Person', { name: 'Ann' });
    const when = new Date('2021-03-04T05:06:07.089Z');
    const obj = new AV.Object('AllTypes');
    obj.set({
      str: 'héllo ✓',
      int: 42,
      float: 3.25,
      negative: -7,
      yes: true,
      no: false,
      when,
      bytes: BYTES,
      arr: [1, 'two', { three: 3 }, [4], true, null],
      nested: { a: { b: [1, 2], c: 'x' }, d: null, e: { f: { g: 0 } } },
      owner: person,
      loc: new AV.GeoPoint(39.9, 116.4),
    });
    await obj.save();
    assert.match(obj.id ?? '', /^[0-9a-f]{24}$/);
    assert.ok(obj.createdAt instanceof Date);

    const got = AV.Object.createWithoutData('AllTypes', obj.id!);
    await got.fetch();
    assert.equal(got.get('str'), 'héllo ✓');
    assert.equal(got.get('int'), 42);
    assert.equal(got.get('float'), 3.25);
    assert.equal(got.get('negative'), -7);
    assert.equal(got.get('yes'), true);
    assert.equal(got.get('no'), false);
    assert.ok(got.get('when') instanceof Date);
    assert.equal((got.get('when') as Date).toISOString(), '2021-03-04T05:06:07.089Z');
    assert.deepEqual(got.get('bytes'), BYTES);
    assert.deepEqual(got.get('arr'), [1, 'two', { three: 3 }, [4], true, null]);
    assert.deepEqual(got.get('nested'), { a: { b: [1, 2], c: 'x' }, d: null, e: { f: { g: 0 } } });
    const owner = got.get('owner') as AV.Object;
    assert.ok(owner instanceof AV.Object);
    assert.equal(owner.className, 'Person');
    assert.equal(owner.id, person.id);
    assert.equal(owner.get('name'), undefined, 'a pointer carries no data without include');
    const loc = got.get('loc') as AV.GeoPoint;
    assert.ok(loc instanceof AV.GeoPoint);
    assert.deepEqual([loc.latitude, loc.longitude], [39.9, 116.4]);
    assert.equal(got.createdAt?.getTime(), obj.createdAt?.getTime());
    assert.ok(got.updatedAt instanceof Date);

    // The wire format the SDK produced, as stored.
    const raw = await h().client.get(`/1.1/classes/AllTypes/${obj.id}`);
    assert.deepEqual(raw.body.when, { __type: 'Date', iso: '2021-03-04T05:06:07.089Z' });
    assert.deepEqual(raw.body.owner, { __type: 'Pointer', className: 'Person', objectId: person.id });
    assert.deepEqual(raw.body.loc, { __type: 'GeoPoint', latitude: 39.9, longitude: 116.4 });
    assert.deepEqual(raw.body.bytes, BYTES);
  });

  test('a pointer comes back with its data with include (fetch and query)', async () => {
    const ann = await saved('Person', { name: 'Ann', age: 30 });
    const post = await saved('Post', { title: 'hi', author: ann });

    const fetched = AV.Object.createWithoutData('Post', post.id!);
    await fetched.fetch({ include: ['author'] });
    const author = fetched.get('author') as AV.Object;
    assert.equal(author.id, ann.id);
    assert.equal(author.get('name'), 'Ann');
    assert.equal(author.get('age'), 30);
    assert.ok(author.createdAt instanceof Date);

    const viaQuery = await new AV.Query<AV.Object>('Post').include('author').get(post.id!);
    assert.equal((viaQuery.get('author') as AV.Object).get('name'), 'Ann');

    const plain = await new AV.Query<AV.Object>('Post').get(post.id!);
    assert.equal((plain.get('author') as AV.Object).get('name'), undefined);
  });

  test('a file saved by URL, referenced from an object and read back', async () => {
    const url = 'https://example.com/assets/logo.png';
    const file = AV.File.withURL('logo.png', url);
    await file.save();
    assert.match(file.id ?? '', /^[0-9a-zA-Z]+$/);

    const obj = await saved('WithFile', { pic: file, title: 'logo' });
    const got = await new AV.Query<AV.Object>('WithFile').get(obj.id!);
    const pic = got.get('pic') as AV.File;
    assert.ok(pic instanceof AV.File, 'the file field decodes to an AV.File');
    assert.equal(pic.id, file.id);
    assert.equal(pic.url(), url);
    assert.equal(pic.name(), 'logo.png');

    const again = AV.File.createWithoutData(file.id!);
    await again.fetch();
    assert.equal(again.url(), url);
    assert.equal(again.name(), 'logo.png');
  });

  test('relation: add, query, remove', async () => {
    const [a, b, c] = await Promise.all([saved('Thing', { name: 'a', n: 1 }), saved('Thing', { name: 'b', n: 2 }), saved('Thing', { name: 'c', n: 3 })]);
    const owner = new AV.Object('Owner');
    owner.set('name', 'o');
    // Two adds merge into one AddRelation op with both objects.
    owner.relation<AV.Object>('likes').add(a);
    owner.relation<AV.Object>('likes').add(c);
    await owner.save();

    const liked = await owner.relation<AV.Object>('likes').query().ascending('n').find();
    assert.deepEqual(pluck(liked, 'name'), ['a', 'c']);

    // The relation as read back from the server (a {__type: Relation} value) queries the same.
    const fetched = await new AV.Query<AV.Object>('Owner').get(owner.id!);
    const rel = fetched.relation<AV.Object>('likes');
    assert.equal(rel.targetClassName, 'Thing');
    assert.deepEqual(pluck(await rel.query().ascending('n').find(), 'name'), ['a', 'c']);

    fetched.relation<AV.Object>('likes').remove(a);
    fetched.relation<AV.Object>('likes').add(b);
    await fetched.save();
    assert.deepEqual(pluck(await owner.relation<AV.Object>('likes').query().ascending('n').find(), 'name'), ['b', 'c']);
    assert.equal(await owner.relation<AV.Object>('likes').query().count(), 2);
  });

  test('ACL: a private object is hidden without the master key and readable with it', async () => {
    const acl = new AV.ACL();
    acl.setPublicReadAccess(false);
    acl.setPublicWriteAccess(false);
    acl.setReadAccess('someUserId', true);
    acl.setRoleWriteAccess('admins', true);
    const secret = new AV.Object('Secret');
    secret.set({ code: 7 });
    secret.setACL(acl);
    await secret.save();
    const open = await saved('Secret', { code: 8 });

    // Without the master key the private object does not exist for the client.
    await rejectsWithCode(new AV.Query<AV.Object>('Secret').get(secret.id!), 101);
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Secret').find(), 'code'), [8]);
    assert.equal(await new AV.Query<AV.Object>('Secret').count(), 1);
    assert.equal(open.getACL(), undefined);

    // Writes are refused (403, code 1) and change nothing.
    const w = AV.Object.createWithoutData('Secret', secret.id!);
    w.set('code', 99);
    const denied = await rejectsWithCode(w.save(), 1);
    assert.match(String(denied.rawMessage), /Forbidden/);
    await rejectsWithCode(AV.Object.createWithoutData('Secret', secret.id!).destroy(), 1);

    // With the master key: readable, and the ACL comes back with includeACL.
    // (Query#get drops includeACL in SDK 4.15: it reads `includeACL` from params named `returnACL`,
    // so fetch and find are the ways to ask for the ACL.)
    const got = AV.Object.createWithoutData('Secret', secret.id!);
    await got.fetch({ includeACL: true }, { useMasterKey: true });
    assert.equal(got.get('code'), 7);
    const back = got.getACL();
    assert.ok(back instanceof AV.ACL);
    assert.equal(back.getPublicReadAccess(), false);
    assert.equal(back.getPublicWriteAccess(), false);
    assert.equal(back.getReadAccess('someUserId'), true);
    assert.equal(back.getWriteAccess('someUserId'), false);
    assert.equal(back.getRoleWriteAccess('admins'), true);
    const all = await new AV.Query<AV.Object>('Secret').includeACL().ascending('code').find({ useMasterKey: true });
    assert.deepEqual(pluck(all, 'code'), [7, 8]);
    assert.equal(all[0].getACL().getReadAccess('someUserId'), true);
    assert.equal(all[1].getACL().getPublicReadAccess(), true, 'an object saved without ACL is public');

    // The master key may write it too.
    const m = AV.Object.createWithoutData('Secret', secret.id!);
    m.set('code', 70);
    await m.save(null, { useMasterKey: true });
    assert.equal((await new AV.Query<AV.Object>('Secret').get(secret.id!, { useMasterKey: true })).get('code'), 70);
  });

  test('update only sends and changes the dirty fields', async () => {
    const obj = await saved('Upd', { a: 1, b: 'x' });
    const createdAt = obj.createdAt!.getTime();
    obj.set('a', 2);
    await obj.save();
    assert.ok(obj.updatedAt!.getTime() >= createdAt);
    const other = AV.Object.createWithoutData('Upd', obj.id!);
    other.set('c', true);
    await other.save();
    const got = await new AV.Query<AV.Object>('Upd').get(obj.id!);
    assert.deepEqual([got.get('a'), got.get('b'), got.get('c')], [2, 'x', true]);
  });

  test('fetchWhenSave returns the server values (option and object flag)', async () => {
    const obj = await saved('Counter', { n: 1, label: 'c' });
    // Someone else moves the counter meanwhile.
    const other = AV.Object.createWithoutData('Counter', obj.id!);
    other.increment('n', 10);
    await other.save();

    obj.increment('n', 1);
    await obj.save(null, { fetchWhenSave: true });
    assert.equal(obj.get('n'), 12, 'the SDK estimate would be 2; fetchWhenSave brings the server value');
    assert.equal(obj.get('label'), 'c');

    const flagged = AV.Object.createWithoutData('Counter', obj.id!);
    flagged.fetchWhenSave(true);
    flagged.increment('n', 3);
    await flagged.save();
    assert.equal(flagged.get('n'), 15);

    // On create, fetchWhenSave returns the whole object.
    const created = new AV.Object('Counter');
    created.set({ n: 5 });
    await created.save(null, { fetchWhenSave: true });
    assert.equal(created.get('n'), 5);
    assert.ok(created.updatedAt instanceof Date);
  });

  test('conditional save: 305 when the query does not match, saved when it does', async () => {
    const obj = await saved('Account', { balance: 30 });
    obj.increment('balance', -50);
    const err = await rejectsWithCode(obj.save(null, { query: new AV.Query<AV.Object>('Account').greaterThanOrEqualTo('balance', 50) }), 305);
    assert.ok(err instanceof AV.Error);
    assert.equal((await new AV.Query<AV.Object>('Account').get(obj.id!)).get('balance'), 30);

    const ok = AV.Object.createWithoutData('Account', obj.id!);
    ok.increment('balance', -20);
    await ok.save(null, { query: new AV.Query<AV.Object>('Account').greaterThanOrEqualTo('balance', 20), fetchWhenSave: true });
    assert.equal(ok.get('balance'), 10);
    assert.equal((await new AV.Query<AV.Object>('Account').get(obj.id!)).get('balance'), 10);
  });

  test('destroy removes the object', async () => {
    const obj = await saved('Doomed', { n: 1 });
    const keep = await saved('Doomed', { n: 2 });
    await obj.destroy();
    await rejectsWithCode(new AV.Query<AV.Object>('Doomed').get(obj.id!), 101);
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Doomed').find(), 'n'), [2]);
    assert.equal((await new AV.Query<AV.Object>('Doomed').get(keep.id!)).get('n'), 2);
  });

  test('AV.Object.saveAll creates and updates in one batch', async () => {
    const objs = [1, 2, 3].map((i) => {
      const o = new AV.Object('Many');
      o.set({ i, tag: `t${i}` });
      return o;
    });
    const res = await AV.Object.saveAll(objs);
    assert.equal(res.length, 3);
    for (const o of objs) assert.match(o.id ?? '', /^[0-9a-f]{24}$/);
    assert.equal(new Set(objs.map((o) => o.id)).size, 3);
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Many').ascending('i').find(), 'tag'), ['t1', 't2', 't3']);

    // Updates and a new object together.
    objs[0].set('tag', 'one');
    objs[2].increment('i', 10);
    const extra = new AV.Object('Many');
    extra.set({ i: 4, tag: 't4' });
    await AV.Object.saveAll([objs[0], objs[2], extra]);
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Many').ascending('i').find(), 'tag'), ['one', 't2', 't4', 't3']);
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Many').ascending('i').find(), 'i'), [1, 2, 4, 13]);
  });

  test('saving an object with a new child object saves both (deep save)', async () => {
    const child = new AV.Object('Child');
    child.set('name', 'kid');
    const parent = new AV.Object('Parent');
    parent.set({ name: 'mum', child });
    const sibling = new AV.Object('Child');
    sibling.set('name', 'kid2');
    parent.set('other', sibling);
    await parent.save();
    assert.ok(child.id && sibling.id && parent.id);
    const got = await new AV.Query<AV.Object>('Parent').include('child', 'other').get(parent.id!);
    assert.equal((got.get('child') as AV.Object).get('name'), 'kid');
    assert.equal((got.get('other') as AV.Object).get('name'), 'kid2');
  });

  test('AV.Object.fetchAll fetches many objects in one batch', async () => {
    const a = await saved('Fetched', { v: 'a' });
    const b = await saved('Other', { v: 'b' });
    const refs = [AV.Object.createWithoutData('Fetched', a.id!), AV.Object.createWithoutData('Other', b.id!)];
    const res = await AV.Object.fetchAll(refs);
    assert.equal(res.length, 2);
    assert.deepEqual(pluck(refs, 'v'), ['a', 'b']);
    assert.ok(refs[0].createdAt instanceof Date);

    // A missing object fails the whole call with 101 (the batch answers success: null).
    await rejectsWithCode(AV.Object.fetchAll([AV.Object.createWithoutData('Fetched', '000000000000000000000000')]), 101);
  });

  test('AV.Object.destroyAll deletes many objects in one batch', async () => {
    const objs = await Promise.all([1, 2, 3, 4].map((i) => saved('Bulk', { i })));
    const other = await saved('BulkOther', { i: 9 });
    await AV.Object.destroyAll([objs[0], objs[2], other]);
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Bulk').ascending('i').find(), 'i'), [2, 4]);
    assert.equal(await new AV.Query<AV.Object>('BulkOther').count(), 0);

    await new AV.Query<AV.Object>('Bulk').equalTo('i', 4).destroyAll();
    assert.deepEqual(pluck(await new AV.Query<AV.Object>('Bulk').find(), 'i'), [2]);
  });
});
