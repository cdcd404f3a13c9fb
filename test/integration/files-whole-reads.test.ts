// Small files are served read whole (src/modules/files/whole-file-reads.ts): the same bytes and
// headers as a streamed file, streamed instead when the memory budget is spent, and the budget
// is given back after every response, also when the client goes away mid-download.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { WHOLE_READ_BUDGET_BYTES, WHOLE_READ_MAX_BYTES, wholeReads } from '../../src/modules/files/whole-file-reads.ts';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';

const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json' };
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** Resolves once no whole-file read holds budget (the release follows the response's end). */
async function budgetReleased(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (wholeReads.used !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(wholeReads.used, 0, 'every whole-file read gave its budget back');
}

for (const engine of engines()) {
  describe(`small files served whole [${engine}]`, () => {
    let h: LocalFilesHarness;
    let base: string;

    const upload = async (data: Buffer): Promise<string> => {
      const t = (await (await fetch(`${base}/1.1/fileTokens`, { method: 'POST', headers: KEYS, body: JSON.stringify({ name: 'w.bin' }) })).json()) as { upload_url: string; url: string };
      const put = await fetch(t.upload_url, { method: 'PUT', body: new Uint8Array(data), headers: { 'content-type': 'application/octet-stream' } });
      assert.equal(put.status, 200);
      return t.url;
    };

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-files-whole-' });
      base = h.base;
    });
    after(async () => {
      await h?.stop();
    });

    test('a small file, a file at the size limit and a larger one come back byte for byte with their headers', async () => {
      // Counts the reads: the three small files are read whole (and only so), the larger one streamed.
      const store = filesServiceOf(h.app)!.store;
      const readWhole = store.readWhole!.bind(store);
      const read = store.read.bind(store);
      let wholeCalls = 0;
      let streamCalls = 0;
      store.readWhole = (location, size) => {
        wholeCalls++;
        return readWhole(location, size);
      };
      store.read = (location, range) => {
        streamCalls++;
        return read(location, range);
      };
      for (const size of [1, 65_537, WHOLE_READ_MAX_BYTES, WHOLE_READ_MAX_BYTES + 1]) {
        const data = randomBytes(size);
        const url = await upload(data);
        const res = await fetch(url);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-length'), String(size));
        assert.equal(res.headers.get('etag'), `"${md5(data)}"`);
        assert.equal(res.headers.get('content-type'), 'application/octet-stream');
        assert.match(res.headers.get('content-disposition') ?? '', /^attachment;/);
        assert.equal(md5(Buffer.from(await res.arrayBuffer())), md5(data), `${size} bytes`);
      }
      assert.deepEqual([wholeCalls, streamCalls], [3, 1]);
      const head = await fetch(await upload(randomBytes(10)), { method: 'HEAD' });
      assert.deepEqual([head.status, head.headers.get('content-length'), wholeCalls], [200, '10', 3], 'HEAD reads nothing whole');
      await budgetReleased();
    });

    test('with the budget spent, a small file is streamed instead', async () => {
      const data = randomBytes(100_000);
      const url = await upload(data);
      assert.equal(wholeReads.take(WHOLE_READ_BUDGET_BYTES), true);
      try {
        const res = await fetch(url);
        assert.equal(res.status, 200);
        assert.equal(md5(Buffer.from(await res.arrayBuffer())), md5(data));
        assert.equal(wholeReads.used, WHOLE_READ_BUDGET_BYTES, 'the streamed download took no budget');
      } finally {
        wholeReads.give(WHOLE_READ_BUDGET_BYTES);
      }
    });

    test('a client that goes away mid-download gives the budget back', async () => {
      const url = await upload(randomBytes(WHOLE_READ_MAX_BYTES));
      await new Promise<void>((resolve, reject) => {
        const req = request(url, (res) => {
          // Read one chunk, then hang up with most of the file unread.
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
        req.end();
      });
      await budgetReleased();
      const res = await fetch(url);
      assert.equal((await res.arrayBuffer()).byteLength, WHOLE_READ_MAX_BYTES);
      await budgetReleased();
    });
  });
}
