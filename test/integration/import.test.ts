/**
 * `larder import` of a hand-made LeanCloud export (test/fixtures/leancloud-export): every type,
 * ACLs (public, role, user, master-only), pointers, relations incl. _Role users/roles, authData
 * with platform bindings, _File rows, column types, and a _User hashed with the §2.3 test vector
 * that must log in over HTTP. The JSONL folder, the .tar.gz archive and the old {results} form
 * must give identical data.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { forEachEngine, startHarness } from './harness/engines.ts';
import { dumpClasses, FIXTURES, fixtureFiles, importInto, relatedIds, tarGz, tempDir } from './harness/import-helpers.ts';

const ALICE = '5f0000000000000000000a11';
const BOB = '5f0000000000000000000b0b';
const CAROL = '5f0000000000000000000ca1';
const DAVE = '5f0000000000000000000da5';
const ADMINS = '5f00000000000000000ad001';
const MODERATORS = '5f00000000000000000ad002';
const POST1 = '5f0000000000000000000001';
const FILE1 = '5f00000000000000000f1e01';
const CLASSES = ['_User', '_Role', '_File', 'Post', 'Comment'];

forEachEngine('import: hand-made LeanCloud export', (h) => {
  // Taken right after the import, before logins touch users (authData logins update them).
  let imported: Record<string, unknown[]> = {};

  test('imports every class and relation, reporting the bcrypt field it cannot use', async () => {
    const { result, errors } = await importInto(h(), join(FIXTURES, 'jsonl'));
    assert.deepEqual(errors, []);
    assert.equal(result.failures, 0);
    assert.equal(result.broken, undefined);
    const counts = Object.fromEntries([...result.classes].map(([c, s]) => [c, [s.read, s.inserted, s.skipped]]));
    assert.deepEqual(counts, { Comment: [1, 1, 0], Post: [4, 4, 0], _File: [1, 1, 0], _Role: [2, 2, 0], _User: [4, 4, 0] });
    assert.deepEqual(Object.fromEntries([...result.relations].map(([k, s]) => [k, [s.targetClass, s.added]])), {
      'Post.likers': ['_User', 2],
      '_Role.users': ['_User', 2],
      '_Role.roles': ['_Role', 1],
    });
    const dropped = [...(result.classes.get('_User')?.dropped.keys() ?? [])];
    assert.equal(dropped.length, 1);
    assert.match(dropped[0], /^bcryptPassword: bcrypt hashes cannot be verified/);
    imported = await dumpClasses(h(), CLASSES);
  });

  test('objects keep their ids, dates and every type', async () => {
    const res = await h().client.get(`/1.1/classes/Post/${POST1}`, { returnACL: 'true' }, { master: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      objectId: POST1,
      createdAt: '2021-01-01T10:00:00.000Z',
      updatedAt: '2021-01-01T12:00:00.123Z',
      ACL: { '*': { read: true, write: true } },
      title: 'Hello, 世界',
      likes: 123,
      ratio: 0.5,
      published: true,
      publishedAt: { __type: 'Date', iso: '2021-01-01T11:00:00.000Z' },
      raw: { __type: 'Bytes', base64: 'aGVsbG8=' },
      where: { __type: 'GeoPoint', latitude: 39.9, longitude: 116.4 },
      author: { __type: 'Pointer', className: '_User', objectId: ALICE },
      cover: res.body.cover,
      tags: ['a', 'b', { __type: 'Date', iso: '2021-02-02T00:00:00.000Z' }],
      meta: { nested: { deep: [1, 2, 3] }, flag: false },
      nothing: null,
      likers: { __type: 'Relation', className: '_User' },
    });
    // File fields come back expanded from the imported _File record.
    assert.equal(res.body.cover.__type, 'File');
    assert.equal(res.body.cover.objectId ?? res.body.cover.id, FILE1);
    assert.equal(res.body.cover.url, 'https://lc-files.example.com/Xyz123/avatar.png');
    // A _File pointer (another way exports write file fields) is stored as a File.
    const alicePost = await h().client.get('/1.1/classes/Post/5f0000000000000000000004', {}, { master: true });
    assert.equal(alicePost.body.cover.__type, 'File');
    const file = await h().client.get(`/1.1/files/${FILE1}`, {}, { master: true });
    assert.equal(file.status, 200);
    assert.equal(file.body.name, 'avatar.png');
    assert.equal(file.body.mime_type, 'image/png');
    assert.deepEqual(file.body.metaData, { owner: ALICE, size: 2048, _checksum: 'd41d8cd98f00b204e9800998ecf8427e' });
    const comment = await h().client.get('/1.1/classes/Comment/5f0000000000000000c00001', { include: 'post' }, { master: true });
    assert.equal(comment.body.post.title, 'Hello, 世界');
  });

  test('column types are registered with the type lock', async () => {
    const schema = await h().client.get('/1.1/schemas/Post', {}, { master: true });
    assert.equal(schema.status, 200);
    const fields = schema.body.fields ?? schema.body;
    assert.equal(fields.publishedAt.type, 'Date');
    assert.deepEqual({ type: fields.author.type, className: fields.author.className }, { type: 'Pointer', className: '_User' });
    assert.deepEqual({ type: fields.likers.type, className: fields.likers.className }, { type: 'Relation', className: '_User' });
    assert.equal(fields.where.type, 'GeoPoint');
    // The lock holds: a string in a Number column is 111.
    const bad = await h().client.put(`/1.1/classes/Post/${POST1}`, { likes: 'many' }, { master: true });
    assert.equal(bad.body.code, 111);
  });

  test('the §2.3 test-vector user logs in with "password"; the exported session token stays valid', async () => {
    const login = await h().client.post('/1.1/login', { username: 'alice', password: 'password' });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.objectId, ALICE);
    assert.equal(login.body.nickName, 'Alice');
    assert.equal(login.body.createdAt, '2020-01-02T03:04:05.678Z');
    const wrong = await h().client.post('/1.1/login', { username: 'alice', password: 'Password' });
    assert.equal(wrong.body.code, 210);
    const me = await h().client.get('/1.1/users/me', {}, { session: 'alicesessiontokenabcdefgh1' });
    assert.equal(me.status, 200);
    assert.equal(me.body.objectId, ALICE);
    // After the upgrade to scrypt at the first login, the password still works.
    const again = await h().client.post('/1.1/login', { email: 'alice@example.com', password: 'password' });
    assert.equal(again.status, 200);
    // Password hashes never show through the API.
    const read = await h().client.get(`/1.1/users/${ALICE}`, {}, { master: true });
    assert.equal(read.body.password, undefined);
    assert.equal(read.body.salt, undefined);
  });

  test('authData logins find the imported users (platform and anonymous bindings)', async () => {
    const wx = await h().client.post('/1.1/users', { authData: { weixin: { openid: 'oWx-bob-openid', access_token: 'new-token', expires_in: 7200 } } });
    assert.ok(wx.status === 200 || wx.status === 201, wx.text);
    assert.equal(wx.body.objectId, BOB);
    const anon = await h().client.post('/1.1/users', { authData: { anonymous: { id: 'a7a5c1c0-carol-anon' } } });
    assert.equal(anon.body.objectId, CAROL);
    const bobMe = await h().client.get('/1.1/users/me', {}, { session: 'bobsessiontokenabcdefghij2' });
    assert.equal(bobMe.body.objectId, BOB);
    // The user whose only hash was bcrypt cannot log in with a password (must reset it).
    const dave = await h().client.post('/1.1/login', { username: 'dave', password: 'anything' });
    assert.notEqual(dave.status, 200);
    assert.equal((await h().client.get(`/1.1/users/${DAVE}`, {}, { master: true })).body.username, 'dave');
  });

  test('ACLs and role memberships work after the import (roles via _Role users/roles relations)', async () => {
    const titles = async (session?: string): Promise<string[]> => {
      const res = await h().client.get('/1.1/classes/Post', { order: 'objectId' }, session ? { session } : {});
      return res.body.results.map((o: { title: string }) => o.title);
    };
    assert.deepEqual(await titles(), ['Hello, 世界']);
    // alice: in admins directly, and the owner of "alice only".
    assert.deepEqual(await titles('alicesessiontokenabcdefgh1'), ['Hello, 世界', 'admins only', 'alice only']);
    // bob: in moderators, which admins.roles contains: moderators' users hold admins.
    assert.deepEqual(await titles('bobsessiontokenabcdefghij2'), ['Hello, 世界', 'admins only']);
    assert.deepEqual(await relatedIds(h(), { className: 'Post', objectId: POST1 }, 'likers', '_User'), [ALICE, BOB]);
    assert.deepEqual(await relatedIds(h(), { className: '_Role', objectId: ADMINS }, 'roles', '_Role'), [MODERATORS]);
    const master = await h().client.get('/1.1/classes/Post/5f0000000000000000000003', { returnACL: 'true' }, { master: true });
    assert.deepEqual(master.body.ACL, {});
  });

  test('the .tar.gz archive and the old {"results":[...]} form give identical data', async () => {
    const archive = join(tempDir(), 'app-export.tar.gz');
    writeFileSync(archive, await tarGz(fixtureFiles('jsonl')));
    for (const source of [archive, join(FIXTURES, 'results')]) {
      const other = await startHarness(h().engine);
      try {
        const { result, errors } = await importInto(other, source);
        assert.deepEqual(errors, [], source);
        assert.equal(result.broken, undefined);
        assert.deepEqual(await dumpClasses(other, CLASSES), imported, source);
        const login = await other.client.post('/1.1/login', { username: 'alice', password: 'password' });
        assert.equal(login.status, 200);
        assert.deepEqual(await relatedIds(other, { className: '_Role', objectId: ADMINS }, 'users', '_User'), [ALICE]);
      } finally {
        await other.stop();
      }
    }
  });
});
