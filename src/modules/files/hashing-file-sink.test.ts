import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, test } from 'node:test';
import { ApiError } from '../../module-api/errors.ts';
import { HashingFileSink, LATER_UNHASHED_BYTES, OFF_THREAD_BACKLOG_BYTES, SINK_BUFFER_BYTES, SYNC_EVERY_BYTES } from './hashing-file-sink.ts';
import { remoteMd5, type RemoteMd5 } from './off-thread-md5.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-sink-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
function chunks(n: number, size: number): Buffer[] {
  return Array.from({ length: n }, (_, i) => Buffer.alloc(size, i % 251));
}

/** Pipes `parts` through a sink on a new file `name` and checks the file, size and md5 are theirs. */
async function sinkStores(name: string, parts: Buffer[], makeSink: (fd: number) => HashingFileSink): Promise<Buffer> {
  const path = join(dir, name);
  const fh = await open(path, 'wx');
  const sink = makeSink(fh.fd);
  await pipeline(Readable.from(parts), sink);
  await sink.hashed();
  await fh.close();
  const all = Buffer.concat(parts);
  assert.equal(sink.size, all.length);
  assert.equal(sink.digest(), md5(all));
  assert.ok((await readFile(path)).equals(all));
  return all;
}

test('the file holds exactly the bytes, in order, and size and md5 are theirs (chunks gathered into writev)', async () => {
  // More than the buffer's worth arrives at once: the sink writes several chunks per call.
  const parts = chunks(40, 64 * 1024 + 7);
  const all = await sinkStores('a', parts, (fd) => new HashingFileSink(fd, 1 << 30));
  assert.ok(all.length > 4 * SINK_BUFFER_BYTES);
});

test('over the limit: fileTooLarge, and the chunk that crossed it is not written', async () => {
  const path = join(dir, 'b');
  const fh = await open(path, 'wx');
  const sink = new HashingFileSink(fh.fd, 100);
  await assert.rejects(pipeline(Readable.from([Buffer.alloc(60, 1), Buffer.alloc(60, 2)]), sink), (err: unknown) => err instanceof ApiError && err.errorName === 'fileTooLarge');
  await fh.close();
  assert.ok((await readFile(path)).length <= 60);
});

test('destroyed while a write runs: "close" comes only after that write returned (the caller closes the descriptor then)', async () => {
  const path = join(dir, 'c');
  const fh = await open(path, 'wx');
  const sink = new HashingFileSink(fh.fd, 1 << 30);
  const big = Buffer.alloc(32 * 1024 * 1024, 7);
  sink.write(big);
  sink.destroy(new Error('client left'));
  await once(sink, 'close').catch(() => {});
  // Were "close" early, the 32 MiB write would still be running and the file shorter.
  assert.equal((await fh.stat()).size, big.length);
  await fh.close();
});

test('a large body is flushed early (fdatasync every syncEvery bytes): bytes, size and md5 unchanged', async () => {
  const parts = chunks(64, 64 * 1024);
  // 256 KiB between flushes: several early fdatasyncs while the 4 MiB arrive.
  await sinkStores('d', parts, (fd) => new HashingFileSink(fd, 1 << 30, 256 * 1024));
});

test('destroyed while an early fdatasync may run: "close" comes only after it returned', async () => {
  const path = join(dir, 'e');
  const fh = await open(path, 'wx');
  const sink = new HashingFileSink(fh.fd, 1 << 30, 1024);
  sink.write(Buffer.alloc(4 * 1024 * 1024, 3));
  sink.write(Buffer.alloc(1024, 4));
  await new Promise((r) => setImmediate(r));
  sink.destroy(new Error('client left'));
  await once(sink, 'close').catch(() => {});
  await fh.close();
  assert.ok((await readFile(path)).length >= 4 * 1024 * 1024);
});

test('md5 on the md5 thread (large uploads): the same bytes, size and md5 as hashing here', async () => {
  const parts = chunks(80, 64 * 1024 + 3);
  await sinkStores('f', parts, (fd) => new HashingFileSink(fd, 1 << 30, 1024 * 1024, remoteMd5()));
});

/** A RemoteMd5 whose thread hashes only when told to (`release`), to see what the sink holds meanwhile. */
function heldMd5(): RemoteMd5 & { release(): void; dropped: boolean; posted: number } {
  const hash = createHash('md5');
  let unhashed: Buffer[] = [];
  let waiters: { below: number; f: () => void }[] = [];
  const backlog = () => unhashed.reduce((n, b) => n + b.length, 0);
  const held = {
    dropped: false,
    posted: 0,
    update(cs: readonly Buffer[]) {
      for (const c of cs) unhashed.push(Buffer.from(c));
      held.posted += cs.reduce((n, b) => n + b.length, 0);
    },
    whenBelow(bytes: number, f: () => void) {
      if (backlog() <= bytes) f();
      else waiters.push({ below: bytes, f });
    },
    release() {
      for (const c of unhashed) hash.update(c);
      unhashed = [];
      const ready = waiters;
      waiters = [];
      for (const w of ready) w.f();
    },
    digest: async () => (held.release(), hash.digest('hex')),
    drop() {
      held.dropped = true;
    },
  };
  return held;
}

test('md5 on the md5 thread: while it lags, the sink stops taking the body (what waits to be hashed stays bounded)', async () => {
  const path = join(dir, 'g');
  const fh = await open(path, 'wx');
  const remote = heldMd5();
  const sink = new HashingFileSink(fh.fd, 1 << 30, SYNC_EVERY_BYTES, remote);
  let pulled = 0;
  const body = Readable.from((function* () {
    for (let i = 0; i < 256; i++) {
      pulled += 64 * 1024;
      yield Buffer.alloc(64 * 1024, i);
    }
  })());
  const done = pipeline(body, sink);
  await new Promise((r) => setTimeout(r, 200));
  // 16 MiB offered; the sink took no more than its backlog and buffer (and the source's own buffer).
  assert.ok(remote.posted <= OFF_THREAD_BACKLOG_BYTES + SINK_BUFFER_BYTES, `posted ${remote.posted}`);
  assert.ok(pulled < 4 * 1024 * 1024, `pulled ${pulled}`);
  const release = setInterval(() => remote.release(), 1);
  await done;
  clearInterval(release);
  await fh.close();
  assert.equal(sink.size, 16 * 1024 * 1024);
  assert.equal((await readFile(path)).length, 16 * 1024 * 1024);
});

test('md5 on the md5 thread: a sink destroyed mid-body drops its hash there and closes', async () => {
  const path = join(dir, 'h');
  const fh = await open(path, 'wx');
  const remote = heldMd5();
  const sink = new HashingFileSink(fh.fd, 1 << 30, SYNC_EVERY_BYTES, remote);
  sink.write(Buffer.alloc(2 * 1024 * 1024, 1));
  await new Promise((r) => setTimeout(r, 50));
  sink.destroy(new Error('client left'));
  await once(sink, 'close').catch(() => {});
  await fh.close();
  assert.equal(remote.dropped, true);
});

test('md5 on the md5 thread: a digest that fails fails the stream', async () => {
  const path = join(dir, 'i');
  const fh = await open(path, 'wx');
  const remote = { ...heldMd5(), digest: () => Promise.reject(new Error('the md5 thread exited (1)')) };
  const sink = new HashingFileSink(fh.fd, 1 << 30, SYNC_EVERY_BYTES, remote);
  await assert.rejects(pipeline(Readable.from([Buffer.alloc(1000, 1)]), sink), /md5 thread exited/);
  await fh.close();
});

test('md5 deferred (`later`): the same bytes, size and md5 as hashing here, small and larger than its allowance', async () => {
  await sinkStores('j', chunks(16, 64 * 1024), (fd) => new HashingFileSink(fd, 1 << 30, SYNC_EVERY_BYTES, 'later'));
  await sinkStores('k', chunks(70, 64 * 1024 + 5), (fd) => new HashingFileSink(fd, 1 << 30, SYNC_EVERY_BYTES, 'later'));
  await sinkStores('l', [Buffer.alloc(0)], (fd) => new HashingFileSink(fd, 1 << 30, SYNC_EVERY_BYTES, 'later'));
});

test('md5 deferred: the hash waits for the writes and catches up in later turns; what waits unhashed stays bounded', async () => {
  const path = join(dir, 'm');
  const fh = await open(path, 'wx');
  const sink = new HashingFileSink(fh.fd, 1 << 30, SYNC_EVERY_BYTES, 'later');
  let most = 0;
  const parts = chunks(128, 64 * 1024);
  const body = Readable.from((function* () {
    for (const p of parts) {
      most = Math.max(most, sink.unhashedBytes);
      yield p;
    }
  })());
  await pipeline(body, sink);
  most = Math.max(most, sink.unhashedBytes);
  // Usually the last chunks are still unhashed when the stream finished (the writes went first).
  if (sink.unhashedBytes > 0) assert.throws(() => sink.digest(), /before hashed\(\) resolved/);
  await sink.hashed();
  assert.equal(sink.unhashedBytes, 0);
  assert.ok(most <= LATER_UNHASHED_BYTES, `unhashed ${most}`);
  assert.equal(sink.digest(), md5(Buffer.concat(parts)));
  await fh.close();
});

test('md5 deferred: a sink destroyed mid-body lets its unhashed chunks go and closes', async () => {
  const path = join(dir, 'n');
  const fh = await open(path, 'wx');
  const sink = new HashingFileSink(fh.fd, 1 << 30, SYNC_EVERY_BYTES, 'later');
  sink.write(Buffer.alloc(512 * 1024, 1));
  sink.destroy(new Error('client left'));
  await once(sink, 'close').catch(() => {});
  await fh.close();
  assert.equal(sink.unhashedBytes, 0);
});
