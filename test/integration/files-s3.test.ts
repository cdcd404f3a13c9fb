// The S3 backend's direct uploads against the s3rver test double (test/support/s3-double.ts), on
// every engine: what the presigned PUT signs, and what Larder checks itself because the double
// (unlike S3) does not enforce the signed Content-Length: an upload larger than the limit is
// refused at fileCallback and removed, and size and md5 are those of the stored object.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FILE_DEFAULTS } from '../../src/modules/files/files-options.ts';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { startS3Double, type S3Double } from '../support/s3-double.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';

const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const MAX = 4096;

for (const engine of engines()) {
  describe(`files on S3 (s3rver test double) [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let s3: S3Double;
    let dir: string;
    let base: string;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, body === undefined ? { method, headers: KEYS } : { method, headers: { ...KEYS, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'larder-files-s3-'));
      s3 = await startS3Double();
      h = await startHarness(engine, { modules: { files: { backend: 's3', dir, ...FILE_DEFAULTS, maxBytes: MAX, s3: s3.options } } });
      base = await h.listen();
    });
    after(async () => {
      await h?.stop();
      await s3?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    test('the presigned PUT signs Content-Type, and Content-Length when the size was declared', async () => {
      const sized = await api('POST', '/1.1/fileTokens', { name: 'a.txt', mime_type: 'text/plain', metaData: { size: 10 } });
      assert.equal(sized.status, 200, JSON.stringify(sized.body));
      const signed = new URL(sized.body.upload_url).searchParams.get('X-Amz-SignedHeaders')?.split(';') ?? [];
      assert.deepEqual([...signed].sort(), ['content-length', 'content-type', 'host']);
      const unsized = await api('POST', '/1.1/fileTokens', { name: 'b.txt', mime_type: 'text/plain' });
      assert.deepEqual(new URL(unsized.body.upload_url).searchParams.get('X-Amz-SignedHeaders')?.split(';').sort(), ['content-type', 'host']);
      assert.ok(Number(new URL(sized.body.upload_url).searchParams.get('X-Amz-Expires')) <= FILE_DEFAULTS.tokenTtlSeconds);
      // A declared size over the limit is refused before any upload.
      const big = await api('POST', '/1.1/fileTokens', { name: 'c.txt', metaData: { size: MAX + 1 } });
      assert.deepEqual([big.status, big.body.code], [413, 413]);
    });

    test('an upload over the limit that the bucket accepted is refused at fileCallback and removed; size and md5 are the stored ones', async () => {
      const t = await api('POST', '/1.1/fileTokens', { name: 'over.bin', mime_type: 'application/octet-stream' });
      const tooBig = Buffer.alloc(MAX + 100, 1);
      const put = await fetch(t.body.upload_url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(tooBig) });
      assert.equal(put.status, 200, 'the double takes it (S3 would too: no size was signed)');
      const cb = await api('POST', '/1.1/fileCallback', { token: t.body.token, result: true });
      assert.deepEqual([cb.status, cb.body.code], [413, 413]);
      const gone = await api('GET', `/1.1/files/${t.body.objectId}`);
      assert.equal(gone.body.code, 211, `the record is gone: ${JSON.stringify(gone.body)}`);
      assert.equal(await filesServiceOf(h.app)!.store.stat(t.body.key), undefined, 'the object is gone from the bucket');

      const ok = await api('POST', '/1.1/fileTokens', { name: 'ok.bin', mime_type: 'application/octet-stream', metaData: { size: 1, _checksum: '0'.repeat(32) } });
      const data = Buffer.from('stored bytes');
      assert.equal((await fetch(ok.body.upload_url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(data) })).status, 200);
      assert.deepEqual((await api('POST', '/1.1/fileCallback', { token: ok.body.token, result: true })).body, {});
      const rec = await api('GET', `/1.1/files/${ok.body.objectId}`);
      assert.equal(rec.body.metaData.size, data.length, 'the real size, not the declared one');
      assert.equal(rec.body.metaData._checksum, createHash('md5').update(data).digest('hex'));
      assert.deepEqual(Buffer.from(await (await fetch(ok.body.url)).arrayBuffer()), data);
    });
  });
}
