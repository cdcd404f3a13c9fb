// Uploads over HTTP on every engine (local disk backend): the token flow, the direct POST,
// serving headers, and hostile input (tokens, sizes, names, keys, types, races).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { cleanupOnce } from '../../src/modules/files/remove-file.ts';
import { SHARDS } from '../../src/modules/files/local-disk-store.ts';
import { sql } from '../../src/sql/fragment.ts';
import { makeContext } from '../../src/http/dispatch.ts';
import { deleteObjects } from '../../src/objects/delete-object.ts';
import { engines, startHarness, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';

const MAX = 4096;
const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const MASTER = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master` };
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

type Json = Record<string, any>;

for (const engine of engines()) {
  describe(`file uploads over HTTP [${engine}]`, () => {
    let h: LocalFilesHarness;
    let base: string;
    let dir: string;

    const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = KEYS): Promise<{ status: number; body: Json }> => {
      const res = await fetch(base + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const token = (name: string, extra: Json = {}, headers?: Record<string, string>) => api('POST', '/1.1/fileTokens', { name, metaData: { owner: 'unknown' }, ...extra }, headers);
    const put = async (url: string, body: Buffer | string, headers: Record<string, string> = {}) => {
      const res = await fetch(url, { method: 'PUT', body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'content-type': 'application/octet-stream', ...headers } });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
    };
    const state = async (id: string) => (await h.db.query<{ state: string }>(sql`SELECT state FROM _larder_files WHERE object_id = ${id}`))[0]?.state;
    const blobCount = async () => {
      let n = 0;
      for (const d of await readdir(dir)) if (d !== 'tmp' && d !== 'thumbnails') n += (await readdir(join(dir, d))).length;
      return n;
    };

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-files-upload-', files: { maxBytes: MAX } });
      ({ base, dir } = h);
    });
    after(async () => {
      await h?.stop();
    });

    test('fileTokens answers every field as a string; upload_url takes one PUT (200); the token cannot be reused', async () => {
      const t = await token('a.txt', { mime_type: 'text/plain' });
      assert.equal(t.status, 200);
      for (const f of ['objectId', 'url', 'token', 'upload_url', 'provider', 'bucket', 'key', 'mime_type']) assert.equal(typeof t.body[f], 'string', f);
      assert.equal(t.body.provider, 's3');
      assert.match(t.body.key, /^[A-Za-z0-9]{24}\.txt$/);
      assert.equal((await put(t.body.upload_url, 'first')).status, 200);
      const again = await put(t.body.upload_url, 'second');
      assert.deepEqual([again.status, again.body.code], [403, 1]);
      assert.equal(await (await fetch(t.body.url)).text(), 'first');
      assert.deepEqual((await api('POST', '/1.1/fileCallback', { token: t.body.token, result: true })).body, {});
      // A late "false" does not remove a committed file.
      await api('POST', '/1.1/fileCallback', { token: t.body.token, result: false });
      assert.equal(await (await fetch(t.body.url)).text(), 'first');
    });

    test('wrong, expired and foreign tokens are 403; nothing is stored', async () => {
      const before = await blobCount();
      assert.equal((await put(`${base}/larder/upload/nonsense`, 'x')).status, 403);
      assert.equal((await put(`${base}/larder/upload/${'a'.repeat(300)}`, 'x')).status, 403);
      const t = await token('b.txt');
      await h.db.query(sql`UPDATE _larder_files SET expires_at = now() - interval '1 second' WHERE object_id = ${t.body.objectId}`);
      assert.equal((await put(t.body.upload_url, 'late')).status, 403);
      assert.equal((await api('POST', '/1.1/fileCallback', { token: 'not-a-token', result: true })).status, 403);
      assert.equal(await blobCount(), before);
    });

    test('concurrent PUTs of one token: exactly one is stored', async () => {
      const t = await token('race.bin');
      const bodies = Array.from({ length: 6 }, (_, i) => Buffer.alloc(1000, i));
      const results = await Promise.all(bodies.map((b) => put(t.body.upload_url, b)));
      const winners = results.filter((r) => r.status === 200);
      assert.equal(winners.length, 1);
      assert.ok(results.every((r) => r.status === 200 || r.status === 403));
      const served = Buffer.from(await (await fetch(t.body.url)).arrayBuffer());
      assert.ok(bodies.some((b) => b.equals(served)));
      const got = await api('GET', `/1.1/files/${t.body.objectId}`);
      assert.equal(got.body.metaData._checksum, md5(served));
    });

    test('oversized bodies: declared too large, streamed too large (chunked), and a declared size over the limit', async () => {
      const t = await token('big.bin');
      const declared = await put(t.body.upload_url, Buffer.alloc(MAX + 1));
      assert.deepEqual([declared.status, declared.body.code], [413, 413]);
      // Chunked (no Content-Length): cut off as the limit passes.
      const chunked = await new Promise<number>((done, fail) => {
        const req = httpRequest(t.body.upload_url, { method: 'PUT', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
          res.resume();
          done(res.statusCode ?? 0);
        });
        req.on('error', fail);
        for (let i = 0; i < 10; i++) req.write(Buffer.alloc(1000));
        req.end();
      });
      assert.equal(chunked, 413);
      // The token survives a failed upload: a right-sized retry works.
      assert.equal((await put(t.body.upload_url, Buffer.alloc(MAX))).status, 200);
      const meta = await token('huge.bin', { metaData: { size: MAX + 1 } });
      assert.deepEqual([meta.status, meta.body.code], [413, 413]);
      const direct = await fetch(`${base}/1.1/files/big.bin`, { method: 'POST', headers: KEYS, body: new Uint8Array(MAX + 10) });
      assert.equal(direct.status, 413);
      assert.equal((await readdir(join(dir, 'tmp'))).length, 0, 'no temporary file is left');
    });

    test('a client that leaves halfway through its body: nothing is stored, the token can be used again', async () => {
      const t = await token('cut.bin');
      const before = await blobCount();
      await new Promise<void>((done) => {
        const req = httpRequest(t.body.upload_url, { method: 'PUT', headers: { 'content-length': String(MAX) } });
        req.on('error', () => done());
        req.write(Buffer.alloc(MAX / 2, 1), () => setTimeout(() => req.destroy(), 50));
      });
      // The server notices the lost connection, gives the token back and removes its file.
      let left = -1;
      for (let i = 0; i < 100 && left !== 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        left = (await readdir(join(dir, 'tmp'))).length;
      }
      assert.equal(left, 0, 'no temporary file is left');
      assert.equal(await blobCount(), before);
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await put(t.body.upload_url, Buffer.alloc(MAX, 2))).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(status, 200);
      assert.ok(Buffer.from(await (await fetch(t.body.url)).arrayBuffer()).equals(Buffer.alloc(MAX, 2)));
    });

    test('POST /1.1/files/<name> stores the body directly; the record has size and _checksum', async () => {
      const data = Buffer.from('%PDF-1.4 not really');
      const res = await fetch(`${base}/1.1/files/report.pdf`, { method: 'POST', headers: { ...KEYS, 'content-type': 'application/pdf' }, body: new Uint8Array(data) });
      assert.equal(res.status, 201);
      const body = (await res.json()) as Json;
      assert.equal(body.size, data.length);
      const got = await api('GET', `/1.1/files/${body.objectId}`);
      assert.deepEqual([got.body.mime_type, got.body.metaData.size, got.body.metaData._checksum], ['application/pdf', data.length, md5(data)]);
      const served = await fetch(body.url);
      assert.equal(served.headers.get('content-disposition')?.startsWith('attachment;'), true);
      const noKeys = await fetch(`${base}/1.1/files/x.txt`, { method: 'POST', body: 'x' });
      assert.equal(noKeys.status, 401);
    });

    test('serving: Content-Type, Length, ETag, Range 206/416, If-None-Match 304, caching, nosniff, disposition', async () => {
      const data = Buffer.from('0123456789');
      const t = await token('digits.txt');
      await put(t.body.upload_url, data);
      const full = await fetch(t.body.url);
      const etag = full.headers.get('etag') as string;
      assert.equal(etag, `"${md5(data)}"`);
      assert.equal(full.headers.get('content-length'), '10');
      assert.equal(full.headers.get('content-type'), 'text/plain');
      assert.equal(full.headers.get('x-content-type-options'), 'nosniff');
      assert.match(full.headers.get('cache-control') as string, /max-age=31536000/);
      assert.match(full.headers.get('content-disposition') as string, /^inline; filename="digits.txt"/);
      const part = await fetch(t.body.url, { headers: { range: 'bytes=2-4' } });
      assert.deepEqual([part.status, await part.text(), part.headers.get('content-range')], [206, '234', 'bytes 2-4/10']);
      const tail = await fetch(t.body.url, { headers: { range: 'bytes=-3' } });
      assert.equal(await tail.text(), '789');
      const bad = await fetch(t.body.url, { headers: { range: 'bytes=20-' } });
      assert.deepEqual([bad.status, bad.headers.get('content-range')], [416, 'bytes */10']);
      const cached = await fetch(t.body.url, { headers: { 'if-none-match': etag } });
      assert.equal(cached.status, 304);
      const head = await fetch(t.body.url, { method: 'HEAD' });
      assert.deepEqual([head.status, head.headers.get('content-length')], [200, '10']);
      assert.equal((await fetch(`${base}/files/nope.txt`)).status, 404);
    });

    test('one chosen key asked for by several fileTokens at once: one file, the others 137, no half-made record', async () => {
      const key = `race/${Date.now()}.bin`;
      const results = await Promise.all(Array.from({ length: 5 }, () => token('k.bin', { key }, MASTER)));
      const won = results.filter((r) => r.status === 200);
      assert.equal(won.length, 1);
      for (const r of results.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.code, r.body.error], [400, 137, 'A file with this key already exists.']);
      const records = await h.db.query<{ n: string | number }>(sql`SELECT count(*) AS n FROM "_File" WHERE data->>'key' = ${key}`);
      const rows = await h.db.query<{ object_id: string }>(sql`SELECT object_id FROM _larder_files WHERE key = ${key}`);
      assert.equal(Number(records[0].n), 1);
      assert.deepEqual(rows.map((r) => r.object_id), [won[0].body.objectId]);
    });

    test('mime spoofing: HTML and SVG are never inline; a wrong declared type is served as declared with nosniff', async () => {
      for (const [name, mime] of [['x.html', 'text/html'], ['x.svg', 'image/svg+xml'], ['y.png', 'text/html; charset=utf-8']]) {
        const t = await token(name, { mime_type: mime });
        await put(t.body.upload_url, '<script>alert(1)</script>');
        const res = await fetch(t.body.url);
        assert.match(res.headers.get('content-disposition') as string, /^attachment;/, name);
        assert.equal(res.headers.get('content-security-policy'), 'sandbox');
      }
      const spoof = await token('cat.png', { mime_type: 'image/png' });
      await put(spoof.body.upload_url, '<html><script>alert(1)</script></html>', { 'content-type': 'text/html' });
      const res = await fetch(spoof.body.url);
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      // A header-breaking type is not taken: the type comes from the name.
      const crlf = await token('z.txt', { mime_type: 'text/plain\r\nX-Evil: 1' });
      assert.equal(crlf.body.mime_type, 'text/plain');
    });

    test('path traversal in names and keys: names never reach paths; bad keys are refused', async () => {
      const t = await token('../../../etc/passwd');
      assert.equal(t.status, 200);
      assert.match(t.body.key, /^[A-Za-z0-9]{24}$/);
      const kept = await token('../../a b/c.txt', { keep_file_name: true });
      assert.match(kept.body.key, /^[A-Za-z0-9]{24}\/[A-Za-z0-9._-]+$/);
      assert.equal(kept.body.key.split('/').includes('..'), false);
      for (const key of ['../x', 'a/../b', '/abs', 'a//b', 'a\\b', 'a%2f..', '.', 'a/./b', '']) {
        const r = await token('k.txt', { key }, MASTER);
        assert.deepEqual([r.status, r.body.code], [400, 1], key);
      }
      const noMaster = await token('k.txt', { key: 'my/key.txt' });
      assert.equal(noMaster.status, 403);
      const ok = await token('k.txt', { key: 'my/key.txt' }, MASTER);
      assert.equal(ok.body.key, 'my/key.txt');
      const dup = await token('k.txt', { key: 'my/key.txt' }, MASTER);
      assert.deepEqual([dup.status, dup.body.code], [400, 137]);
      for (const p of ['/files/..%2f..%2fetc%2fpasswd', '/files/%2e%2e/x', '/files/a/../../x']) {
        assert.equal((await fetch(base + p)).status, 404, p);
      }
      // A malformed URL is refused by the HTTP layer.
      assert.equal((await fetch(`${base}/files/%`)).status, 400);
    });

    test('a file deleted during its upload: the upload fails, no bytes stay', async () => {
      const t = await token('doomed.bin');
      const before = await blobCount();
      // The PUT claims the token, then its bytes trickle in while the file is deleted.
      const done = new Promise<number>((resolve, reject) => {
        const req = httpRequest(t.body.upload_url, { method: 'PUT', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.write(Buffer.alloc(100));
        const wait = async () => {
          while ((await state(t.body.objectId)) !== 'uploading') await new Promise((r) => setTimeout(r, 10));
          const del = await api('DELETE', `/1.1/files/${t.body.objectId}`);
          assert.equal(del.status, 200);
          req.end(Buffer.alloc(100));
        };
        wait().catch(reject);
      });
      assert.equal(await done, 404);
      assert.equal(await blobCount(), before);
      assert.equal(await state(t.body.objectId), undefined);
    });

    test('fileCallback false abandons; the cleanup job removes expired uploads and files deleted by other paths', async () => {
      const abandoned = await token('gone.txt');
      assert.deepEqual((await api('POST', '/1.1/fileCallback', { token: abandoned.body.token, result: false })).body, {});
      assert.equal((await api('GET', `/1.1/files/${abandoned.body.objectId}`)).body.code, 211);
      const expired = await token('never.txt');
      await h.db.query(sql`UPDATE _larder_files SET expires_at = now() - interval '1 hour' WHERE object_id = ${expired.body.objectId}`);
      const viaClass = await token('class-deleted.txt');
      await put(viaClass.body.upload_url, 'bytes');
      const before = await blobCount();
      // Deleted by a path that knows nothing of bytes (SQL, as a restore or a tool would), and
      // old enough to be swept.
      await h.db.query(sql`DELETE FROM "_File" WHERE "objectId" = ${viaClass.body.objectId}`);
      await h.db.query(sql`UPDATE _larder_files SET created_at = now() - interval '1 hour' WHERE object_id = ${viaClass.body.objectId}`);
      const svc = filesServiceOf(h.app);
      assert.ok(svc);
      // Two cleaners at once (two processes): each file is removed once, none twice or never.
      const [a, b] = await Promise.all([cleanupOnce(svc), cleanupOnce(svc)]);
      assert.ok(a + b >= 2);
      assert.equal(await state(expired.body.objectId), undefined);
      assert.equal((await api('GET', `/1.1/files/${expired.body.objectId}`)).body.code, 211);
      assert.equal(await state(viaClass.body.objectId), undefined);
      assert.equal(await blobCount(), before - 1);
    });

    test('deletes in a batch, and master-key deletes through /1.1/classes/_File, remove the bytes too', async () => {
    const t = await token('batched.txt');
    await put(t.body.upload_url, 'batched');
    const m = await token('by-master.txt', { ACL: {} });
    await put(m.body.upload_url, 'master only');
    const refused = await api('DELETE', `/1.1/classes/_File/${m.body.objectId}`);
    assert.equal(refused.status, 403);
    assert.equal((await fetch(m.body.url)).status, 200);
    const batch = await api('POST', '/1.1/batch', { requests: [
      { method: 'DELETE', path: `/1.1/files/${t.body.objectId}` },
      { method: 'DELETE', path: `/1.1/classes/_File/${m.body.objectId}` },
    ] }, MASTER);
    assert.deepEqual(batch.body, [{ success: {} }, { success: {} }]);
    for (const f of [t, m]) {
      assert.equal((await fetch(f.body.url)).status, 404);
      assert.equal(await state(f.body.objectId), undefined);
    }
  });

  test('a _File delete by any other path through the write pipeline removes the bytes after the commit', async () => {
    const t = await token('piped.txt');
    await put(t.body.upload_url, 'piped');
    const ctx = makeContext(h.app, { credentials: {}, production: true }, true, base);
    await deleteObjects(ctx, '_File', [t.body.objectId]);
    // The after stage runs once the delete is committed, without the caller waiting for it.
    for (let i = 0; i < 500 && (await state(t.body.objectId)) !== undefined; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await state(t.body.objectId), undefined);
    assert.equal((await fetch(t.body.url)).status, 404);
  });

  test('bad fileTokens and fileCallback bodies are 400s; the record needs create permission', async () => {
      for (const body of [[1], { name: '' }, { name: 'a\u0000b' }, { name: 'a', metaData: 5 }, { name: 'a', keep_file_name: 'yes' }, { name: 5 }, { name: 'a', ACL: { '*': { read: 'x' } } }]) {
        const r = await api('POST', '/1.1/fileTokens', body);
        assert.equal(r.status, 400, JSON.stringify(body));
      }
      for (const body of [{}, { token: 5 }, { token: 'x', result: 'yes' }]) assert.equal((await api('POST', '/1.1/fileCallback', body)).status, 400);
      assert.equal((await api('POST', '/1.1/fileTokens', { name: 'a.txt' }, { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': 'wrong' })).status, 401);
    });

    test('a configured local store gets all its shard directories in the background after start; a throwaway store does not', async () => {
      // Made by the server on its own (nothing here asks for them): poll until all are there.
      const deadline = Date.now() + 30_000;
      let names = new Set(await readdir(dir));
      while (SHARDS.some((s) => !names.has(s)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        names = new Set(await readdir(dir));
      }
      for (const s of SHARDS) assert.ok(names.has(s), `shard ${s}`);
      // An app without files options (its own temporary store) makes a shard only when a file needs it.
      const other = await startHarness(engine, { sameDatabaseAs: h });
      try {
        const otherBase = await other.listen();
        const t = await (await fetch(`${otherBase}/1.1/fileTokens`, { method: 'POST', headers: { ...KEYS, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'a.txt' }) })).json() as Json;
        assert.equal((await put(t.upload_url, 'hello')).status, 200);
        await new Promise((r) => setTimeout(r, 300));
        const otherDir = filesServiceOf(other.app)?.opts.dir;
        assert.ok(otherDir);
        assert.deepEqual((await readdir(otherDir)).filter((d) => d !== 'tmp' && d !== 'thumbnails').length, 1);
      } finally {
        await other.stop();
      }
    });
  });
}
