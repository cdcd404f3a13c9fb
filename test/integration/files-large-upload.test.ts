// Uploads large enough to be md5-hashed on the md5 thread (off-thread-md5.ts, declared at least
// OFF_THREAD_MD5_MIN_BYTES), over HTTP on every engine (local disk backend): the token PUT and
// the direct POST store exactly the bytes with their md5 as `_checksum`; a client that leaves
// halfway gets its token back and a retry succeeds; one larger than the limit is refused.
// Smaller bodies of several socket reads, hashed on the main thread after their chunks went to
// the file (hashing-file-sink.ts, `later`), likewise.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { OFF_THREAD_MD5_MIN_BYTES } from '../../src/modules/files/off-thread-md5.ts';
import { LATER_UNHASHED_BYTES } from '../../src/modules/files/hashing-file-sink.ts';
import { sql } from '../../src/sql/fragment.ts';
import { abandonPut, partFiles, untilUploadLetGo } from './harness/abandoned-upload.ts';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';

const SIZE = OFF_THREAD_MD5_MIN_BYTES + 12345;
const MAX = 2 * SIZE;
const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
type Json = Record<string, any>;

/** Bytes that differ from chunk to chunk, so a reordered or repeated chunk would show in the md5. */
function body(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) b.writeUInt32LE(((i + seed) * 2654435761) >>> 0, i);
  return b;
}

for (const engine of engines()) {
  describe(`large uploads, md5 on its own thread [${engine}]`, () => {
    let h: LocalFilesHarness;
    let base: string;
    let dir: string;

    const api = async (method: string, path: string, data?: unknown): Promise<{ status: number; body: Json }> => {
      const res = await fetch(base + path, { method, headers: { ...KEYS, 'content-type': 'application/json' }, body: data === undefined ? undefined : JSON.stringify(data) });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const token = async (name: string) => (await api('POST', '/1.1/fileTokens', { name, metaData: { owner: 'unknown' } })).body;
    const put = async (url: string, data: Buffer) => {
      const res = await fetch(url, { method: 'PUT', body: new Uint8Array(data), headers: { 'content-type': 'application/octet-stream' } });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
    };
    const served = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
    const state = async (id: string) => (await h.db.query<{ state: string }>(sql`SELECT state FROM _larder_files WHERE object_id = ${id}`))[0]?.state;

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-files-large-', files: { maxBytes: MAX } });
      ({ base, dir } = h);
    });
    after(async () => {
      await h?.stop();
    });

    test('PUT upload_url: the stored bytes, size and _checksum are the body\'s; two at once do not mix', async () => {
      const [t1, t2] = [await token('a.bin'), await token('b.bin')];
      const [d1, d2] = [body(SIZE, 1), body(SIZE + 1, 2)];
      const [r1, r2] = await Promise.all([put(t1.upload_url, d1), put(t2.upload_url, d2)]);
      assert.deepEqual([r1.status, r2.status], [200, 200]);
      for (const [t, d] of [[t1, d1], [t2, d2]] as const) {
        assert.ok((await served(t.url)).equals(d));
        const got = await api('GET', `/1.1/files/${t.objectId}`);
        assert.deepEqual([got.body.metaData.size, got.body.metaData._checksum], [d.length, md5(d)]);
      }
    });

    test('POST /1.1/files/<name>: size and _checksum of the body', async () => {
      const data = body(SIZE, 3);
      const res = await fetch(`${base}/1.1/files/big.bin`, { method: 'POST', headers: { ...KEYS, 'content-type': 'application/octet-stream' }, body: new Uint8Array(data) });
      assert.equal(res.status, 201);
      const created = (await res.json()) as Json;
      const got = await api('GET', `/1.1/files/${created.objectId}`);
      assert.deepEqual([got.body.metaData.size, got.body.metaData._checksum], [data.length, md5(data)]);
      assert.ok((await served(created.url)).equals(data));
    });

    test('a client that leaves halfway: no temporary file stays, the token is pending again, a retry stores the whole body', async () => {
      const t = await token('left.bin');
      const url = new URL(t.upload_url);
      await abandonPut(Number(url.port), url.pathname, SIZE, body(SIZE / 2, 4), 200);
      await untilUploadLetGo(dir, () => state(t.objectId));
      assert.equal(await state(t.objectId), 'pending');
      assert.deepEqual(await partFiles(dir), []);
      const data = body(SIZE, 5);
      assert.equal((await put(t.upload_url, data)).status, 200);
      const got = await api('GET', `/1.1/files/${t.objectId}`);
      assert.equal(got.body.metaData._checksum, md5(data));
    });

    test('smaller bodies, md5 after their writes: 1 MiB and past the unhashed allowance, four at once and the direct POST, bytes and _checksum are theirs', async () => {
      const sizes = [1024 * 1024, 3 * LATER_UNHASHED_BYTES + 5, 64 * 1024 + 1, 1024 * 1024 - 3];
      const tokens = await Promise.all(sizes.map((_, i) => token(`s${i}.bin`)));
      const datas = sizes.map((n, i) => body(n, 10 + i));
      const results = await Promise.all(tokens.map((t, i) => put(t.upload_url, datas[i])));
      assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200]);
      for (const [i, t] of tokens.entries()) {
        assert.ok((await served(t.url)).equals(datas[i]));
        const got = await api('GET', `/1.1/files/${t.objectId}`);
        assert.deepEqual([got.body.metaData.size, got.body.metaData._checksum], [datas[i].length, md5(datas[i])]);
      }
      const data = body(2 * LATER_UNHASHED_BYTES + 1, 20);
      const res = await fetch(`${base}/1.1/files/small.bin`, { method: 'POST', headers: { ...KEYS, 'content-type': 'application/octet-stream' }, body: new Uint8Array(data) });
      assert.equal(res.status, 201);
      const created = (await res.json()) as Json;
      const got = await api('GET', `/1.1/files/${created.objectId}`);
      assert.deepEqual([got.body.metaData.size, got.body.metaData._checksum], [data.length, md5(data)]);
    });

    test('a smaller body whose client leaves halfway: no temporary file stays, the token is pending again, a retry stores it', async () => {
      const t = await token('left-small.bin');
      const url = new URL(t.upload_url);
      await abandonPut(Number(url.port), url.pathname, 1024 * 1024, body(512 * 1024, 21), 200);
      await untilUploadLetGo(dir, () => state(t.objectId));
      assert.equal(await state(t.objectId), 'pending');
      assert.deepEqual(await partFiles(dir), []);
      const data = body(1024 * 1024, 22);
      assert.equal((await put(t.upload_url, data)).status, 200);
      const got = await api('GET', `/1.1/files/${t.objectId}`);
      assert.equal(got.body.metaData._checksum, md5(data));
    });

    test('over the limit (declared): 413 before the body is read, nothing stored', async () => {
      const t = await token('huge.bin');
      const res = await put(t.upload_url, Buffer.alloc(MAX + 1));
      assert.equal(res.status, 413);
      assert.equal(await state(t.objectId), 'pending');
    });
  });
}
