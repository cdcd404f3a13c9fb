// Thumbnail renders are bounded per process (render-slots.ts, docs/files.md "Thumbnails"): a
// render waits for a slot behind at most `thumbnailQueue` others and at most `thumbnailWaitMs`;
// past either it gets 429 `thumbnailsBusy` and nothing is made. The test holds the one slot
// itself (as a long render would) so that who waits and who is refused does not depend on
// how fast the machine renders.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import type { RenderSlots } from '../../src/modules/files/render-slots.ts';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';

const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const WAIT_MS = 1500;

/** Holds one render slot until `release()` (resolves once the slot is held). */
async function holdSlot(slots: RenderSlots): Promise<{ release: () => Promise<void> }> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let taken: () => void = () => {};
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  const done = slots.run(async () => {
    taken();
    await held;
  });
  await isTaken;
  return {
    release: async () => {
      release();
      await done;
    },
  };
}

/** Waits (up to 5 s) until `n` renders wait for a slot. */
async function untilWaiting(slots: RenderSlots, n: number): Promise<void> {
  for (let i = 0; i < 500 && slots.load.waiting !== n; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(slots.load.waiting, n, 'renders waiting for a slot');
}

for (const engine of engines()) {
  describe(`thumbnail renders are bounded [${engine}]`, () => {
    let h: LocalFilesHarness;
    let file: { objectId: string; url: string };
    const slots = () => filesServiceOf(h.app)!.renderSlots;
    const made = async () => (await readdir(join(h.dir, 'thumbnails', file.objectId)).catch(() => [] as string[])).filter((n) => !n.endsWith('.part')).length;

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-thumb-slots-', files: { thumbnailSlots: 1, thumbnailQueue: 1, thumbnailWaitMs: WAIT_MS } });
      const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#336699' } }).png().toBuffer();
      const res = await fetch(`${h.base}/1.1/files/slots.png`, { method: 'POST', headers: { ...KEYS, 'content-type': 'image/png' }, body: new Uint8Array(png) });
      assert.equal(res.status, 201);
      file = (await res.json()) as { objectId: string; url: string };
    });
    after(async () => {
      await h?.stop();
    });

    test('with every slot taken one render waits; one more is refused at once with 429 thumbnailsBusy and nothing is made', async () => {
      const slot = await holdSlot(slots());
      const waiting = fetch(`${file.url}?imageView/2/w/100/h/100`);
      await untilWaiting(slots(), 1);
      const refused = await fetch(`${file.url}?imageView/2/w/90/h/90`);
      assert.equal(refused.status, 429);
      assert.deepEqual(await refused.json(), { code: 429, error: 'Too many thumbnails are being made right now; try again shortly.' });
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal(refused.headers.get('cache-control'), 'no-store');
      assert.equal(await made(), 0, 'nothing made while the slot is held');
      // A plain download takes no slot.
      assert.equal((await fetch(file.url)).status, 200);
      await slot.release();
      const res = await waiting;
      assert.equal(res.status, 200, 'the waiting render was made once the slot was free');
      assert.deepEqual([(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width], [100]);
      assert.equal(await made(), 1, 'only the render that waited was made');
      assert.equal((await fetch(`${file.url}?imageView/2/w/90/h/90`)).status, 200, 'the refused size is made when asked again');
      assert.deepEqual(slots().load, { running: 0, waiting: 0 });
    });

    test('a render that waits longer than thumbnailWaitMs is refused and leaves the queue', async () => {
      const slot = await holdSlot(slots());
      const before = await made();
      const started = Date.now();
      const res = await fetch(`${file.url}?imageView/2/w/80/h/80`);
      const waited = Date.now() - started;
      assert.equal(res.status, 429);
      assert.equal(((await res.json()) as { code: number }).code, 429);
      assert.ok(waited >= WAIT_MS - 50, `refused after ${waited} ms`);
      assert.deepEqual(slots().load, { running: 1, waiting: 0 });
      await slot.release();
      assert.equal(await made(), before, 'the refused render was not made later');
      assert.equal((await fetch(`${file.url}?imageView/2/w/80/h/80`)).status, 200);
    });

    test('requests for the same new thumbnail share one render (one place in the queue)', async () => {
      const slot = await holdSlot(slots());
      const same = Array.from({ length: 4 }, () => fetch(`${file.url}?imageView/1/w/60/h/60`));
      // The queue holds one render: without sharing, three of the four would be refused.
      await untilWaiting(slots(), 1);
      // Time for the other three to arrive (were they not to share, they would be refused now).
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(slots().load, { running: 1, waiting: 1 });
      await slot.release();
      const answers = await Promise.all(same);
      assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
      const bodies = await Promise.all(answers.map(async (r) => Buffer.from(await r.arrayBuffer()).toString('base64')));
      assert.equal(new Set(bodies).size, 1, 'the same bytes');
    });
  });
}
