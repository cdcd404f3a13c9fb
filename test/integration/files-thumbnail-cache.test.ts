// The thumbnail cache's size cap (LARDER_THUMBNAIL_CACHE_MAX_BYTES): the cache class on a real
// directory (least recently used first, hits refresh, sweeps bring it to 90 % of the cap), and
// through HTTP on every engine (many sizes of one image never hold more than the cap).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { ThumbnailCache } from '../../src/modules/files/thumbnail-cache.ts';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';

const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const KB = 1024;

async function diskBytes(root: string): Promise<number> {
  let n = 0;
  for (const d of await readdir(root).catch(() => [] as string[])) for (const f of await readdir(join(root, d))) n += (await stat(join(root, d, f))).size;
  return n;
}

describe('thumbnail cache: size cap, least recently used first', () => {
  let root: string;
  before(async () => {
    root = join(await mkdtemp(join(tmpdir(), 'larder-thumbcache-')), 'thumbnails');
  });
  after(async () => rm(join(root, '..'), { recursive: true, force: true }));

  test('old entries are evicted down to 90 % of the cap; a hit keeps an entry', async () => {
    const cache = new ThumbnailCache(root, 100 * KB);
    const path = (f: string, n: number) => join(root, f, `${n}.png`);
    const old = new Date(Date.now() - 10 * 60_000);
    for (let i = 0; i < 4; i++) {
      await cache.store(path('fileA', i), Buffer.alloc(20 * KB, i));
      await utimes(path('fileA', i), new Date(old.getTime() + i * 1000), new Date(old.getTime() + i * 1000));
    }
    assert.equal(await diskBytes(root), 80 * KB);
    // Entry 0 is the oldest; a hit makes it the most recent.
    const hit = await cache.lookup(path('fileA', 0));
    assert.equal(hit?.size, 20 * KB);
    await hit?.file.close();
    await new Promise((r) => setTimeout(r, 50));
    await cache.store(path('fileB', 0), Buffer.alloc(30 * KB, 9));
    await cache.sweep();
    // 110 KB > 100 KB: the least recently used go until at most 90 KB remain.
    assert.ok((await diskBytes(root)) <= 90 * KB, `${await diskBytes(root)} bytes left`);
    assert.equal(existsSync(path('fileA', 1)), false, 'the least recently used went first');
    assert.equal(existsSync(path('fileA', 0)), true, 'the entry just read stayed');
    assert.equal(existsSync(path('fileB', 0)), true, 'the new entry stayed');
    assert.equal(await cache.lookup(path('fileA', 1)), undefined);
  });

  test('an entry larger than the cap, or a cap of 0, is not cached', async () => {
    const small = new ThumbnailCache(join(root, '..', 'small'), 10 * KB);
    await small.store(join(root, '..', 'small', 'f', 'big.png'), Buffer.alloc(11 * KB));
    assert.equal(await small.total(), 0);
    const off = new ThumbnailCache(join(root, '..', 'off'), 0);
    await off.store(join(root, '..', 'off', 'f', 'x.png'), Buffer.alloc(10));
    assert.equal(await off.total(), 0);
  });
});

for (const engine of engines()) {
  describe(`thumbnail cache through HTTP [${engine}]`, () => {
    const CAP = 60 * KB;
    let h: LocalFilesHarness;
    let base: string;
    let dir: string;

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-thumbs-cap-', files: { thumbnailCacheMaxBytes: CAP } });
      ({ base, dir } = h);
    });
    after(async () => {
      await h?.stop();
    });

    test('many sizes of one image never leave more than the cap on disk; evicted ones are made again', async () => {
      const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#000000', noise: { type: 'gaussian' as const, mean: 128, sigma: 60 } } }).png().toBuffer();
      const res = await fetch(`${base}/1.1/files/noise.png`, { method: 'POST', headers: { ...KEYS, 'content-type': 'image/png' }, body: new Uint8Array(png) });
      assert.equal(res.status, 201);
      const f = (await res.json()) as { url: string };
      const cache = filesServiceOf(h.app)!.thumbnails;
      const root = join(dir, 'thumbnails');
      let first: ArrayBuffer | undefined;
      for (let i = 0; i < 10; i++) {
        const t = await fetch(`${f.url}?imageView/2/w/${90 + i}/h/${90 + i}/format/png`);
        assert.equal(t.status, 200);
        const body = await t.arrayBuffer();
        first ??= body;
        await cache.sweep();
        assert.ok((await diskBytes(root)) <= CAP, `thumbnail ${i}: ${await diskBytes(root)} bytes cached, cap ${CAP}`);
      }
      const again = await fetch(`${f.url}?imageView/2/w/90/h/90/format/png`);
      assert.equal(again.status, 200);
      assert.deepEqual(Buffer.from(await again.arrayBuffer()), Buffer.from(first!), 'an evicted thumbnail is made again, the same');
    });
  });
}
