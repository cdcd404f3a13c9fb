import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { LocalDiskStore, SHARDS } from './local-disk-store.ts';

test('SHARDS: every two-character start of a location, once', () => {
  assert.equal(SHARDS.length, 62 * 62);
  assert.equal(new Set(SHARDS).size, SHARDS.length);
  assert.ok(SHARDS.includes('Az') && SHARDS.includes('09') && SHARDS.includes('z0'));
});

test('makeShards makes the missing shard directories and leaves existing ones and their blobs alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-shards-'));
  try {
    await mkdir(join(dir, 'Ab'));
    await writeFile(join(dir, 'Ab', 'AbCdEfGhIjKlMnOpQrStUvWxYz012345'), 'kept');
    const store = await LocalDiskStore.open(dir);
    await store.makeShards();
    const names = await readdir(dir);
    assert.equal(names.length, SHARDS.length + 1, 'every shard and tmp/');
    for (const s of SHARDS) assert.ok(names.includes(s), s);
    assert.equal(await readFile(join(dir, 'Ab', 'AbCdEfGhIjKlMnOpQrStUvWxYz012345'), 'utf8'), 'kept');
    // An upload into a shard goes straight in (no directory made on its way).
    const stored = await store.write('zz0123456789abcdefghij', Readable.from([Buffer.from('bytes')]), { maxBytes: 100, exclusive: true });
    assert.equal(stored.size, 5);
    assert.equal(await readFile(join(dir, 'zz', 'zz0123456789abcdefghij'), 'utf8'), 'bytes');
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('close stops the making of shard directories: none is made after it returned', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-shards-'));
  try {
    const store = await LocalDiskStore.open(dir);
    const fill = store.makeShards();
    await store.close();
    const made = (await readdir(dir)).length;
    assert.ok(made < SHARDS.length, `stopped early (${made} entries)`);
    await fill;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await readdir(dir)).length, made);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('makeShards of a store whose directory was removed resolves and does not make it again', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-shards-'));
  const store = await LocalDiskStore.open(dir);
  await rm(dir, { recursive: true, force: true });
  await store.makeShards();
  assert.equal(existsSync(dir), false);
  await store.close();
});
