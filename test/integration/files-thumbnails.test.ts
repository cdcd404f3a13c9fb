// Thumbnails (?imageView/...) on every engine: sizes, caching, and bounded input (a
// decompression bomb, an oversized file, non-images and SVG get clear errors).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';

const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };

for (const engine of engines()) {
  describe(`thumbnails [${engine}]`, () => {
    let h: LocalFilesHarness;
    let base: string;
    let dir: string;

    /** Uploads bytes directly (POST /1.1/files/<name>) and returns the record's answer. */
    const upload = async (name: string, data: Buffer, type: string): Promise<{ objectId: string; url: string }> => {
      const res = await fetch(`${base}/1.1/files/${name}`, { method: 'POST', headers: { ...KEYS, 'content-type': type }, body: new Uint8Array(data) });
      assert.equal(res.status, 201);
      return (await res.json()) as { objectId: string; url: string };
    };

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-thumbs-', files: { thumbnailMaxPixels: 1_000_000, thumbnailMaxInputBytes: 200_000 } });
      ({ base, dir } = h);
    });
    after(async () => {
      await h?.stop();
    });

    test('sizes of both modes; the default format is the file\'s own; cached answers and 304', async () => {
      const jpeg = await sharp({ create: { width: 400, height: 100, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
      const f = await upload('wide.jpg', jpeg, 'image/jpeg');
      const fit = await fetch(`${f.url}?imageView/2/w/200/h/200`);
      assert.equal(fit.headers.get('content-type'), 'image/jpeg');
      const m = await sharp(Buffer.from(await fit.arrayBuffer())).metadata();
      assert.deepEqual([m.width, m.height], [200, 50]);
      const crop = await fetch(`${f.url}?imageView/1/w/60/h/60/format/webp`);
      const c = await sharp(Buffer.from(await crop.arrayBuffer())).metadata();
      assert.deepEqual([c.format, c.width, c.height], ['webp', 60, 60]);
      const etag = crop.headers.get('etag') as string;
      assert.equal((await fetch(`${f.url}?imageView/1/w/60/h/60/format/webp`, { headers: { 'if-none-match': etag } })).status, 304);
      // Deleting the file removes its cached thumbnails too.
      assert.equal(existsSync(join(dir, 'thumbnails', f.objectId)), true);
      await fetch(`${base}/1.1/files/${f.objectId}`, { method: 'DELETE', headers: KEYS });
      assert.equal(existsSync(join(dir, 'thumbnails', f.objectId)), false);
      assert.equal((await fetch(`${f.url}?imageView/2/w/200/h/200`)).status, 404);
    });

    test('a decompression bomb (small file, many pixels) is refused before decoding: 413', async () => {
      const bomb = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#000000' } }).png({ compressionLevel: 9 }).toBuffer();
      assert.ok(bomb.length < 200_000, `the bomb is small (${bomb.length} bytes)`);
      const f = await upload('bomb.png', bomb, 'image/png');
      const res = await fetch(`${f.url}?imageView/2/w/100/h/100`);
      const body = (await res.json()) as { code: number; error: string };
      assert.deepEqual([res.status, body.code], [413, 1]);
      assert.match(body.error, /pixels/);
      // The file itself is still served.
      assert.equal((await fetch(f.url)).status, 200);
    });

    test('too many bytes 413; text and SVG 415; bad parameters 400', async () => {
      const noisy = await sharp({ create: { width: 600, height: 600, channels: 3, background: '#000000', noise: { type: 'gaussian' as const, mean: 128, sigma: 60 } } }).png().toBuffer();
      assert.ok(noisy.length > 200_000);
      const big = await upload('noisy.png', noisy, 'image/png');
      assert.equal((await fetch(`${big.url}?imageView/2/w/10/h/10`)).status, 413);
      const text = await upload('notes.png', Buffer.from('not an image at all'), 'image/png');
      assert.equal((await fetch(`${text.url}?imageView/2/w/10/h/10`)).status, 415);
      const svg = await upload('logo.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'), 'image/svg+xml');
      assert.equal((await fetch(`${svg.url}?imageView/2/w/10/h/10`)).status, 415);
      for (const q of ['imageView/9/w/10', 'imageView/2/w/0', 'imageView/2/w/10/format/bmp', 'imageView/2']) {
        const res = await fetch(`${text.url}?${q}`);
        assert.deepEqual([res.status, ((await res.json()) as { code: number }).code], [400, 1], q);
      }
    });
  });
}
