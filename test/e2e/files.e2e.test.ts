// The official SDK's file flow (fileTokens, PUT upload_url, fileCallback) end to end, on every
// engine and on both storage backends (local disk; S3 through the s3rver test double).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { sql } from '../../src/sql/fragment.ts';
import { FILE_DEFAULTS, type FilesOptions } from '../../src/modules/files/files-options.ts';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { engines, startHarness, type Harness } from '../integration/harness/engines.ts';
import { startS3Double, type S3Double } from '../support/s3-double.ts';
import { AV, pointSdkAt } from './sdk.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** Waits until the file's bytes are committed (the SDK sends fileCallback without awaiting it). */
async function committed(h: Harness, objectId: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const rows = await h.db.query<{ state: string }>(sql`SELECT state FROM _larder_files WHERE object_id = ${objectId}`);
    if (rows[0]?.state === 'committed') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`file ${objectId} was never committed`);
}

/** AV.File#thumbnailURL with all five parameters (the SDK's typings declare only two). */
function thumbnailUrl(file: AV.File, w: number, h: number, q: number, fit: boolean, fmt: string): string {
  const f = file.thumbnailURL as unknown as (this: AV.File, w: number, h: number, q: number, fit: boolean, fmt: string) => string;
  return f.call(file, w, h, q, fit, fmt);
}

async function bytesOf(url: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

for (const backend of ['local', 's3'] as const) {
  for (const engine of engines()) {
    describe(`files with the JS SDK [${engine}, ${backend}]`, () => {
      let h: Harness & { stop(): Promise<void> };
      let s3: S3Double | undefined;
      let dir: string;
      before(async () => {
        dir = await mkdtemp(join(tmpdir(), 'larder-files-e2e-'));
        s3 = backend === 's3' ? await startS3Double() : undefined;
        const files: FilesOptions = { backend, dir, ...FILE_DEFAULTS, s3: s3?.options };
        h = await startHarness(engine, { modules: { files } });
        pointSdkAt(await h.listen());
        await AV.User.logOut();
      });
      after(async () => {
        await h?.stop();
        await s3?.stop();
        await rm(dir, { recursive: true, force: true });
      });

      test('new AV.File(name, Buffer).save(): the url serves the same bytes; size and _checksum are real', async () => {
        const data = Buffer.from('hello, larder files\n'.repeat(100));
        const file = await new AV.File('greeting.txt', data).save();
        assert.match(file.id as string, /^[0-9a-f]{24}$/);
        await committed(h, file.id as string);
        const got = await bytesOf(file.url());
        assert.equal(got.status, 200);
        assert.deepEqual(got.body, data);
        assert.equal(got.headers.get('content-type'), 'text/plain');
        const fetched = await AV.File.createWithoutData(file.id as string).fetch();
        assert.equal(fetched.get('name'), 'greeting.txt');
        assert.equal(fetched.metaData('size'), data.length);
        assert.equal(fetched.metaData('_checksum'), md5(data));
        assert.equal(fetched.url(), file.url());
      });

      test('{base64} data and a binary image; thumbnailURL in both modes', async () => {
        const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();
        const file = await new AV.File('pic.png', { base64: png.toString('base64') }).save();
        await committed(h, file.id as string);
        assert.deepEqual((await bytesOf(file.url())).body, png);
        const fit = await bytesOf(thumbnailUrl(file, 100, 100, 80, true, 'png'));
        assert.equal(fit.status, 200);
        assert.equal(fit.headers.get('content-type'), 'image/png');
        const fitMeta = await sharp(fit.body).metadata();
        assert.deepEqual([fitMeta.format, fitMeta.width, fitMeta.height], ['png', 100, 67]);
        const crop = await bytesOf(thumbnailUrl(file, 50, 50, 90, false, 'jpg'));
        const cropMeta = await sharp(crop.body).metadata();
        assert.deepEqual([cropMeta.format, cropMeta.width, cropMeta.height], ['jpeg', 50, 50]);
        // The second request is served from the cache: the same bytes.
        assert.deepEqual((await bytesOf(thumbnailUrl(file, 50, 50, 90, false, 'jpg'))).body, crop.body);
      });

      test('AV.File.withURL saves an external file; it is listed with uploaded ones', async () => {
        const ext = await AV.File.withURL('remote.png', 'https://cdn.example.com/remote.png').save();
        const fetched = await AV.File.createWithoutData(ext.id as string).fetch();
        assert.equal(fetched.url(), 'https://cdn.example.com/remote.png');
        const obj = await new AV.Object('Album').set('cover', ext).save();
        const back = await AV.Object.createWithoutData('Album', obj.id as string).fetch();
        assert.equal(back.get('cover').url(), 'https://cdn.example.com/remote.png');
      });

      test('a file in an object reads back with its url; destroy() removes the record and the bytes', async () => {
        const data = Buffer.from([0, 1, 2, 3, 254, 255]);
        const file = await new AV.File('blob.bin', data).save();
        await committed(h, file.id as string);
        const obj = await new AV.Object('Doc').set('attachment', file).save();
        const back = await AV.Object.createWithoutData('Doc', obj.id as string).fetch();
        assert.deepEqual((await bytesOf(back.get('attachment').url())).body, data);
        const svc = filesServiceOf(h.app);
        assert.ok(svc);
        const [row] = await h.db.query<{ blob: string }>(sql`SELECT blob FROM _larder_files WHERE object_id = ${file.id as string}`);
        assert.ok(await svc.store.stat(row.blob));
        await file.destroy();
        assert.equal((await bytesOf(file.url())).status, 404);
        assert.equal(await svc.store.stat(row.blob), undefined);
        assert.equal((await h.db.query(sql`SELECT 1 FROM _larder_files WHERE object_id = ${file.id as string}`)).length, 0);
      });

      test('a private file (ACL) is hidden from others as a record; its owner reads and deletes it', async () => {
        const user = await AV.User.signUp(`f${Date.now()}${Math.floor(Math.random() * 1e6)}`, 'pw-123456');
        const file = new AV.File('mine.txt', Buffer.from('secret'));
        file.setACL(new AV.ACL(user));
        await file.save();
        await committed(h, file.id as string);
        const fetched = await AV.File.createWithoutData(file.id as string).fetch();
        assert.equal(fetched.metaData('owner'), user.id);
        await AV.User.logOut();
        await assert.rejects(AV.File.createWithoutData(file.id as string).fetch());
        await assert.rejects(AV.File.createWithoutData(file.id as string).destroy());
        await AV.User.logIn(user.getUsername(), 'pw-123456');
        await AV.File.createWithoutData(file.id as string).destroy();
        await AV.User.logOut();
      });
    });
  }
}
