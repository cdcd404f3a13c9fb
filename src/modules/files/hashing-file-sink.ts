import { createHash, type Hash } from 'node:crypto';
import { fdatasync, write, writev } from 'node:fs';
import { Writable } from 'node:stream';
import { filesError } from './files-errors.ts';
import type { RemoteMd5 } from './off-thread-md5.ts';

/**
 * How much of a body may wait in memory for the disk, per upload. While one write is in the
 * thread pool the chunks that arrive meanwhile are kept and written together by one writev, so
 * a 1 MiB body takes a few file system calls instead of one per 64 KiB socket read; past this
 * the body's socket is paused (flat memory whatever the file size).
 */
export const SINK_BUFFER_BYTES = 256 * 1024;

/**
 * A large upload's bytes are flushed to the disk while the rest still arrives: every this many
 * bytes written, an fdatasync runs in the thread pool next to the next writes (never two at
 * once). Otherwise the whole file stays dirty in the page cache until the final fsync, which
 * then waits for all of it after the last byte came (about 75 ms for 100 MB here, 15 % of the
 * upload; docs/benchmarks.md, "Downloads and large uploads"). Small files never reach it.
 */
export const SYNC_EVERY_BYTES = 16 * 1024 * 1024;

/**
 * With the md5 on its own thread (off-thread-md5.ts), how many bytes may wait there to be
 * hashed before the sink stops taking more (the body's socket is then paused): the copies
 * posted to the thread stay bounded whatever the file size.
 */
export const OFF_THREAD_BACKLOG_BYTES = 4 * SINK_BUFFER_BYTES;

/**
 * With the md5 deferred (`'later'`), how many bytes of a body may wait unhashed: past this the
 * oldest chunks are hashed at once, so an upload holds at most this much more than the sink's
 * buffer whatever its size. A 1 MiB body is hashed wholly off its receiving path.
 */
export const LATER_UNHASHED_BYTES = 1024 * 1024;

/**
 * Where a sink's md5 is computed: on this thread as each chunk is taken (`here`); on this thread
 * a chunk per turn of the event loop after the chunk went to the disk (`later`: `kept` waits);
 * or on the md5 thread (`thread`; `result` is its digest, once it came back).
 */
type Md5 =
  | { where: 'here'; hash: Hash }
  | { where: 'later'; hash: Hash; kept: Buffer[]; keptBytes: number; scheduled: boolean; caughtUp: (() => void)[] }
  | { where: 'thread'; remote: RemoteMd5; result?: string };

/**
 * The end of a local upload: counts and md5-hashes the bytes and writes them to an open file
 * descriptor, in one stream (no pass-through between hashing and writing), failing with
 * `fileTooLarge` the moment more than `maxBytes` arrived, before that chunk is written. The
 * caller opens, syncs and closes the descriptor. The hash is of exactly the bytes handed to the
 * file, in order: the writes of one sink never overlap (a Writable calls the next write only
 * after the previous one finished), and a short write is continued at the file position
 * where it stopped.
 */
export class HashingFileSink extends Writable {
  /** The md5: on this thread, or on the md5 thread (`remote`) with its result once the stream finished. */
  private readonly md5: Md5;
  private count = 0;
  private position = 0;
  /** A write is in the thread pool. */
  private writing = false;
  /** The destroy that waits for that write (see _destroy). */
  private afterWrite?: () => void;
  /** An early fdatasync is in the thread pool; what waits for it to return. */
  private syncing = false;
  private afterSync: (() => void)[] = [];
  /** File position the last early fdatasync started at, and the error it failed with. */
  private syncedTo = 0;
  private syncError?: Error;

  /** The md5 thread's hash, when the sink hashes there. */
  private readonly remote?: RemoteMd5;

  /**
   * `md5`: where the hash is computed. By default on this thread as each chunk is taken.
   * A RemoteMd5: on the md5 thread (large uploads); each batch is posted there before it is
   * written, in the order written, so the digest is still of exactly the file's bytes.
   * `'later'`: on this thread, but each chunk after it was handed to the file, one chunk per
   * turn of the event loop (at most LATER_UNHASHED_BYTES waiting), so that receiving and writing
   * a small body are not held up by its hash and the hash's tail runs while the caller links and
   * fsyncs the file; the caller awaits `hashed()` before `digest()`. Only for bodies whose chunks
   * are never reused by their producer once written (an HTTP request's are its own).
   */
  constructor(private readonly fd: number, private readonly maxBytes: number, private readonly syncEvery = SYNC_EVERY_BYTES, md5?: RemoteMd5 | 'later') {
    super({ highWaterMark: SINK_BUFFER_BYTES });
    if (md5 === 'later') this.md5 = { where: 'later', hash: createHash('md5'), kept: [], keptBytes: 0, scheduled: false, caughtUp: [] };
    else if (md5) {
      this.remote = md5;
      this.md5 = { where: 'thread', remote: md5 };
    } else this.md5 = { where: 'here', hash: createHash('md5') };
  }

  /** Starts an early fdatasync when enough was written since the last one and none runs. */
  private maybeSync(): void {
    if (this.syncing || this.syncError || this.position - this.syncedTo < this.syncEvery) return;
    this.syncing = true;
    this.syncedTo = this.position;
    fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err) this.syncError = err;
      const waiting = this.afterSync;
      this.afterSync = [];
      for (const f of waiting) f();
    });
  }

  /** Calls `f` once no early fdatasync runs (at once when none does). */
  private whenSynced(f: () => void): void {
    if (!this.syncing) return f();
    this.afterSync.push(f);
  }

  /**
   * The stream ends only after an early fdatasync returned (the caller syncs and closes next)
   * and, with a remote md5, once its digest came back.
   */
  override _final(done: (err?: Error | null) => void): void {
    const md5 = this.md5;
    if (md5.where !== 'thread') return this.whenSynced(() => done(this.syncError));
    md5.remote.digest().then(
      (hex) => {
        md5.result = hex;
        this.whenSynced(() => done(this.syncError));
      },
      (err: Error) => this.whenSynced(() => done(err)),
    );
  }

  /** Counts and hashes a chunk (or keeps it for a later turn); false (and the stream fails) when the limit is passed. */
  private take(chunk: Buffer): boolean {
    this.count += chunk.length;
    if (this.count > this.maxBytes) return false;
    const md5 = this.md5;
    if (md5.where === 'here') md5.hash.update(chunk);
    else if (md5.where === 'later') {
      md5.kept.push(chunk);
      md5.keptBytes += chunk.length;
      // Flat memory: a body larger than the allowance is hashed here for what is over it.
      while (md5.keptBytes > LATER_UNHASHED_BYTES) this.hashOneKept();
      this.scheduleHashing();
    }
    return true;
  }

  /** `later`: hashes the oldest kept chunk. */
  private hashOneKept(): void {
    const md5 = this.md5;
    if (md5.where !== 'later') return;
    const chunk = md5.kept.shift()!;
    md5.keptBytes -= chunk.length;
    md5.hash.update(chunk);
  }

  /** `later`: hashes one kept chunk per turn of the event loop (I/O callbacks run in between) until none is left. */
  private scheduleHashing(): void {
    const md5 = this.md5;
    if (md5.where !== 'later' || md5.scheduled || !md5.kept.length) return;
    md5.scheduled = true;
    setImmediate(() => {
      md5.scheduled = false;
      if (!md5.kept.length) return;
      this.hashOneKept();
      if (md5.kept.length) return this.scheduleHashing();
      for (const f of md5.caughtUp.splice(0)) f();
    });
  }

  /**
   * Resolves once every byte taken so far is in the md5 (at once unless `later`): called after
   * the stream finished, it lets the hash's tail run next to the caller's link and fsyncs.
   */
  hashed(): Promise<void> {
    const md5 = this.md5;
    if (md5.where !== 'later' || !md5.kept.length) return Promise.resolve();
    return new Promise((resolve) => md5.caughtUp.push(resolve));
  }

  private tooLarge(): Error {
    return filesError('fileTooLarge', `The file is larger than ${this.maxBytes} bytes, the most this server accepts (LARDER_FILE_MAX_BYTES).`);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.syncError) return done(this.syncError);
    if (!this.take(chunk)) return done(this.tooLarge());
    this.remote?.update([chunk]);
    this.writeAll([chunk], this.paced(done));
  }

  override _writev(chunks: { chunk: Buffer }[], done: (err?: Error | null) => void): void {
    if (this.syncError) return done(this.syncError);
    const buffers = chunks.map((c) => c.chunk);
    for (const b of buffers) if (!this.take(b)) return done(this.tooLarge());
    this.remote?.update(buffers);
    this.writeAll(buffers, this.paced(done));
  }

  /** `done`, held with a remote md5 until its thread's backlog is small again (flat memory). */
  private paced(done: (err?: Error | null) => void): (err?: Error | null) => void {
    const remote = this.remote;
    if (!remote) return done;
    return (err) => (err ? done(err) : remote.whenBelow(OFF_THREAD_BACKLOG_BYTES, () => done()));
  }

  /**
   * A destroyed sink (the body failed, the client left) reports closed only once its write in
   * the thread pool returned: the caller closes the descriptor after that, and a descriptor
   * closed under a running write could be reused by another open and written into.
   */
  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // The same holds for an early fdatasync of the descriptor.
    const close = () => this.whenSynced(() => cb(err));
    this.remote?.drop();
    // A sink that failed lets its kept chunks go; whoever waited for them hears nothing more. One
    // that finished is destroyed too (autoDestroy): its hash still catches up.
    if (this.md5.where === 'later' && !this.writableFinished) {
      this.md5.kept = [];
      this.md5.keptBytes = 0;
    }
    if (this.writing) this.afterWrite = close;
    else close();
  }

  /** Writes `buffers` at the sink's position, continuing after a short write. */
  private writeAll(buffers: Buffer[], done: (err?: Error | null) => void): void {
    this.writing = true;
    const onWritten = (err: Error | null, n: number) => {
      this.writing = false;
      if (this.afterWrite) return this.afterWrite();
      if (err) return done(err);
      this.position += n;
      this.maybeSync();
      let rest = n;
      while (buffers.length && rest >= buffers[0].length) rest -= buffers.shift()!.length;
      if (!buffers.length) return done();
      if (rest > 0) buffers[0] = buffers[0].subarray(rest);
      this.writeAll(buffers, done);
    };
    if (buffers.length === 1) write(this.fd, buffers[0], 0, buffers[0].length, this.position, onWritten);
    else writev(this.fd, buffers, this.position, onWritten);
  }

  /** `later`: bytes taken and not yet hashed (0 otherwise). */
  get unhashedBytes(): number {
    return this.md5.where === 'later' ? this.md5.keptBytes : 0;
  }

  /** Bytes taken so far. */
  get size(): number {
    return this.count;
  }

  /** The md5 (hex) of everything taken; call once, after the stream finished (and, `later`, after `hashed()`). */
  digest(): string {
    if (this.md5.where === 'here') return this.md5.hash.digest('hex');
    if (this.md5.where === 'later') {
      if (this.md5.kept.length) throw new Error('HashingFileSink.digest() before hashed() resolved');
      return this.md5.hash.digest('hex');
    }
    if (this.md5.result === undefined) throw new Error('HashingFileSink.digest() before the stream finished');
    return this.md5.result;
  }
}
