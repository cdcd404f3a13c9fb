/**
 * The round trip the issue asks for: data with every type, ACL, relation and user in Larder A,
 * exported with POST /1.1/exportData, downloaded, imported into a fresh Larder B with the same
 * code path as `larder import`, and read back through B's API identically; users log in to B with
 * their passwords (scrypt ones made in A, and LeanCloud SHA-512 ones imported into A), sessions
 * stay valid, and authData logins find the same users.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { exportAndWait } from './harness/export-archive.ts';
import { forEachEngine, startHarness, type Harness } from './harness/engines.ts';
import { dumpClasses, FIXTURES, importInto, relatedIds, tempDir } from './harness/import-helpers.ts';

const CLASSES = ['_User', '_Role', '_File', 'Post', 'Comment', 'Thing'];

async function post(h: Harness, path: string, body: unknown, opts: { session?: string; master?: boolean } = { master: true }): Promise<Record<string, any>> {
  const res = await h.client.post(path, body, opts);
  assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** Fills A: the LeanCloud fixture (users with SHA-512 hashes, roles, relations) plus API-made data. */
async function seed(a: Harness): Promise<{ zoe: { id: string; token: string }; things: string[] }> {
  const { errors } = await importInto(a, join(FIXTURES, 'jsonl'));
  assert.deepEqual(errors, []);
  const zoe = await post(a, '/1.1/users', { username: 'zoe', password: 'zoe-secret-1', email: 'zoe@example.com', age: 30 }, {});
  const wx = await post(a, '/1.1/users', { authData: { qq: { openid: 'qq-zoe-2', access_token: 't' } } }, {});
  const file = await post(a, '/1.1/files', { name: 'doc.pdf', url: 'https://files.example.com/doc.pdf', metaData: { size: 10 } });
  const role = await post(a, '/1.1/roles', { name: 'writers', ACL: { '*': { read: true } }, users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: zoe.objectId }] } });
  const acls = [{ '*': { read: true, write: true } }, { 'role:writers': { read: true } }, { [zoe.objectId]: { read: true, write: true } }, {}];
  const things: string[] = [];
  for (let i = 0; i < acls.length; i++) {
    const t = await post(a, '/1.1/classes/Thing', {
      i, s: `thing ${i}`, f: i + 0.25, b: i % 2 === 0, d: { __type: 'Date', iso: `2024-0${i + 1}-01T00:00:00.000Z` },
      bytes: { __type: 'Bytes', base64: 'AAEC' }, geo: { __type: 'GeoPoint', latitude: i, longitude: -i },
      owner: { __type: 'Pointer', className: '_User', objectId: zoe.objectId }, doc: { __type: 'File', id: file.objectId },
      arr: [1, 'two', { three: 3 }, { __type: 'Date', iso: '2024-05-05T00:00:00.000Z' }], obj: { a: { b: [null, true] } }, nil: null,
      ACL: acls[i],
    });
    things.push(t.objectId);
  }
  await a.client.put(`/1.1/classes/Thing/${things[0]}`, { fans: { __op: 'AddRelation', objects: [zoe.objectId, wx.objectId].map((objectId) => ({ __type: 'Pointer', className: '_User', objectId })) } }, { master: true });
  assert.ok(role.objectId);
  return { zoe: { id: zoe.objectId, token: zoe.sessionToken }, things };
}

forEachEngine('import: round trip through the export (A -> export -> import -> B)', (h) => {
  test('B reads back what A has; users log in to B with their passwords', async () => {
    const a = h();
    const { zoe, things } = await seed(a);
    const before = await dumpClasses(a, CLASSES);
    const fansA = await relatedIds(a, { className: 'Thing', objectId: things[0] }, 'fans', '_User');

    const job = await exportAndWait(a, {});
    assert.equal(job.status, 'done', JSON.stringify(job));
    const url = new URL(job.download_url ?? '');
    const download = await a.server.inject({ method: 'GET', url: url.pathname + url.search });
    assert.equal(download.statusCode, 200);
    const archive = join(tempDir(), 'roundtrip.tar.gz');
    writeFileSync(archive, download.rawPayload);

    const b = await startHarness(a.engine);
    try {
      const { result, errors } = await importInto(b, archive);
      assert.deepEqual(errors, []);
      assert.equal(result.broken, undefined);
      assert.deepEqual(await dumpClasses(b, CLASSES), before);
      assert.deepEqual(await relatedIds(b, { className: 'Thing', objectId: things[0] }, 'fans', '_User'), fansA);
      assert.deepEqual(
        await relatedIds(b, { className: '_Role', objectId: '5f00000000000000000ad001' }, 'roles', '_Role'),
        await relatedIds(a, { className: '_Role', objectId: '5f00000000000000000ad001' }, 'roles', '_Role'),
      );
      // Passwords: scrypt (signed up in A) and LeanCloud SHA-512 (imported into A).
      for (const [username, password] of [['zoe', 'zoe-secret-1'], ['alice', 'password']]) {
        const login = await b.client.post('/1.1/login', { username, password });
        assert.equal(login.status, 200, `${username}: ${login.text}`);
      }
      assert.equal((await b.client.post('/1.1/login', { username: 'zoe', password: 'wrong' })).status, 400);
      // Sessions and role ACLs: zoe (a writer) reads the role-only and her own Thing in B.
      const seen = await b.client.get('/1.1/classes/Thing', { order: 'i' }, { session: zoe.token });
      assert.deepEqual(seen.body.results.map((t: { i: number }) => t.i), [0, 1, 2]);
      const anon = await b.client.get('/1.1/classes/Thing', { order: 'i' });
      assert.deepEqual(anon.body.results.map((t: { i: number }) => t.i), [0]);
      // authData: the same platform account finds the same user in B.
      const qqA = await a.client.post('/1.1/users', { authData: { qq: { openid: 'qq-zoe-2', access_token: 'again' } } });
      const qqB = await b.client.post('/1.1/users', { authData: { qq: { openid: 'qq-zoe-2', access_token: 'again' } } });
      assert.equal(qqB.body.objectId, qqA.body.objectId);
      // Field types came along.
      const schemaB = await b.client.get('/1.1/schemas/Thing', {}, { master: true });
      const schemaA = await a.client.get('/1.1/schemas/Thing', {}, { master: true });
      assert.deepEqual(schemaB.body.fields ?? schemaB.body, schemaA.body.fields ?? schemaA.body);
    } finally {
      await b.stop();
    }
  });
});
