// PUT upload_url of a token this process issued: no claim statement; the commit checks what
// the claim checked (pending, valid when the PUT began), and the bytes are placed only where
// nothing is yet, so a PUT of the same token on another process (simulated here through the
// database and the disk) is never overwritten or removed (src/modules/files/receive-upload.ts).
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { tokenHash } from '../../src/modules/files/file-key.ts';
import { sql } from '../../src/sql/fragment.ts';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { startLocalFilesHarness, type LocalFilesHarness } from './harness/local-files.ts';
import { captured } from './harness/statement-spy.ts';

const KEYS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json' };

type Json = Record<string, any>;

for (const engine of engines()) {
  describe(`uploads without a claim [${engine}]`, () => {
    let h: LocalFilesHarness;
    let base: string;
    let dir: string;

    const token = async (name: string): Promise<Json> => {
      const res = await fetch(`${base}/1.1/fileTokens`, { method: 'POST', headers: KEYS, body: JSON.stringify({ name }) });
      assert.equal(res.status, 200);
      return (await res.json()) as Json;
    };
    const put = async (url: string, body: string) => {
      const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
    };
    const row = async (id: string) => (await h.db.query<{ state: string; blob: string }>(sql`SELECT state, blob FROM _larder_files WHERE object_id = ${id}`))[0];
    const blobPath = (blob: string) => join(dir, blob.slice(0, 2), blob);
    const blobCount = async () => {
      let n = 0;
      for (const d of await readdir(dir)) if (d !== 'tmp' && d !== 'thumbnails') n += (await readdir(join(dir, d))).length;
      return n;
    };

    before(async () => {
      h = await startLocalFilesHarness(engine, { prefix: 'larder-files-unclaimed-', files: { maxBytes: 4096 } });
      ({ base, dir } = h);
    });
    after(async () => {
      await h?.stop();
    });

    test('a token issued by this process is committed in one statement; one it does not know is claimed first', async () => {
      const t = await token('one.txt');
      const seen = await captured(h.db, async () => assert.equal((await put(t.upload_url, 'one')).status, 200));
      assert.equal(seen.length, 1, seen.map((s) => s.toQuery().text).join('\n'));
      assert.equal((await row(t.objectId)).state, 'committed');
      assert.equal(await (await fetch(t.url)).text(), 'one');
      const u = await token('two.txt');
      // As if issued by another process: this one has never heard of it.
      filesServiceOf(h.app)!.issuedTokens.drop(tokenHash(u.token));
      const claimed = await captured(h.db, async () => assert.equal((await put(u.upload_url, 'two')).status, 200));
      assert.equal(claimed.length, 2);
      // Used: the next PUT is refused by the claim, whichever way the first went.
      for (const x of [t, u]) assert.equal((await put(x.upload_url, 'again')).status, 403);
    });

    test('another process placed its bytes first: this PUT is refused and leaves them alone', async () => {
      const t = await token('race.txt');
      const { blob } = await row(t.objectId);
      // The other process claimed the token and put its bytes at the blob's location.
      await h.db.query(sql`UPDATE _larder_files SET state = 'uploading' WHERE object_id = ${t.objectId}`);
      await mkdir(join(dir, blob.slice(0, 2)), { recursive: true });
      await writeFile(blobPath(blob), 'theirs');
      const res = await put(t.upload_url, 'ours');
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(await readFile(blobPath(blob), 'utf8'), 'theirs');
      assert.equal((await row(t.objectId)).state, 'uploading');
      assert.deepEqual((await readdir(join(dir, 'tmp'))).filter((f) => f.endsWith('.part')), []);
    });

    test('another process claimed but has not placed its bytes: this PUT commits, and that one can no longer', async () => {
      const t = await token('first.txt');
      await h.db.query(sql`UPDATE _larder_files SET state = 'uploading' WHERE object_id = ${t.objectId}`);
      assert.equal((await put(t.upload_url, 'mine')).status, 200);
      assert.equal((await row(t.objectId)).state, 'committed');
      assert.equal(await (await fetch(t.url)).text(), 'mine');
    });

    test('a token that expired by the database is refused at the commit; nothing is kept', async () => {
      const t = await token('late.txt');
      await h.db.query(sql`UPDATE _larder_files SET expires_at = now() - interval '1 second' WHERE object_id = ${t.objectId}`);
      const before = await blobCount();
      assert.equal((await put(t.upload_url, 'late')).status, 403);
      assert.equal(await blobCount(), before);
      assert.equal((await row(t.objectId)).state, 'pending');
      assert.equal((await fetch(t.url)).status, 404);
    });

    test('a file deleted before its PUT: refused through this process (403), gone through another (404); nothing is kept', async () => {
      const here = await token('here.txt');
      const del = await fetch(`${base}/1.1/files/${here.objectId}`, { method: 'DELETE', headers: KEYS });
      assert.equal(del.status, 200);
      const before = await blobCount();
      assert.equal((await put(here.upload_url, 'x')).status, 403);
      const there = await token('there.txt');
      await h.db.query(sql`DELETE FROM "_File" WHERE "objectId" = ${there.objectId}`);
      const res = await put(there.upload_url, 'x');
      assert.deepEqual([res.status, res.body.code], [404, 1]);
      assert.equal(await blobCount(), before);
    });
  });
}
