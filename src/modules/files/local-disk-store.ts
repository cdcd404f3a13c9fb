import { randomBytes } from 'node:crypto';
import { close as fsClose, createReadStream, fsync as fsFsync, mkdir as fsMkdir, open as fsOpen, read as fsRead, unlink as fsUnlink } from 'node:fs';
import { promisify } from 'node:util';
import { link, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingLimiter } from './hashing-limiter.ts';
import { HashingFileSink, SYNC_EVERY_BYTES } from './hashing-file-sink.ts';
import { OFF_THREAD_MD5_MIN_BYTES, remoteMd5 } from './off-thread-md5.ts';
import { pumpInto } from './pump-into.ts';
import { ALPHABET } from './file-key.ts';
import type { BlobStore, ByteRange, StoredBlob } from './blob-store.ts';

/** Locations on disk are server-made random ids; anything else is refused before touching a path. */
const LOCATION = /^[A-Za-z0-9]{16,64}$/;

function checked(location: string): string {
  if (!LOCATION.test(location)) throw new Error(`invalid blob location ${JSON.stringify(location.slice(0, 80))}`);
  return location;
}

async function md5OfFile(path: string): Promise<string> {
  const limiter = new HashingLimiter(Number.MAX_SAFE_INTEGER);
  await pipeline(createReadStream(path), limiter, async function* (src) {
    for await (const _ of src) void _;
  });
  return limiter.digest();
}

const openFd = promisify(fsOpen);
const fsyncFd = promisify(fsFsync);
const closeFd = promisify(fsClose);

/** Removes a name, whatever came of it (a plain unlink: fs.rm's rimraf costs an lstat and more per call). */
function unlinkQuietly(path: string): Promise<void> {
  return new Promise((resolve) => fsUnlink(path, () => resolve()));
}

/**
 * fsync of a directory's entries (a rename into it). Its descriptor is closed after the sync
 * returned without waiting for the close: one trip through the thread pool less before the
 * upload can be committed.
 */
async function syncDirectory(path: string): Promise<void> {
  const fd = await openFd(path, 'r');
  try {
    await fsyncFd(fd);
  } finally {
    fsClose(fd, () => {});
  }
}

/** Every shard directory a blob can land in: the first two characters of a location (3,844). */
export const SHARDS: readonly string[] = [...ALPHABET].flatMap((x) => [...ALPHABET].map((y) => x + y));

/** Makes one directory (not its parents: a store removed meanwhile is not made again); true if it is there. */
function makeDirectory(path: string): Promise<boolean> {
  return new Promise((resolve) => fsMkdir(path, (err) => resolve(!err || err.code === 'EEXIST')));
}

/** Errors of link() on file systems without hard links: the placeholder way is taken instead. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/**
 * Puts the file at `temp` at `target` unless something is there already (EEXIST then): a hard
 * link, which only ever creates the name. Where the file system has no hard links, an empty
 * placeholder created with O_EXCL claims the name and the rename replaces it. The caller
 * removes `temp`'s name after a link.
 */
async function placeExclusive(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (err) {
    if (!NO_LINKS.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    const fd = await openFd(target, 'wx');
    fsClose(fd, () => {});
    await rename(temp, target);
  }
}

/**
 * File bytes on local disk under one directory: `<dir>/<first two chars>/<location>`. Writes go
 * to `<dir>/tmp/<random>` and are renamed into place only once complete; the file and its
 * directory are then fsynced before `write` returns. A blob is read only through a committed
 * record, and a record is committed only after `write` returned, so a committed file is whole
 * and survives a power loss. A crash during a write leaves a temporary file (the next start
 * removes it) or a possibly partial blob that no committed record names (its upload stays
 * `uploading`, and the cleanup job removes the blob with it; a pull removes it on its next run).
 */
export class LocalDiskStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly bucket: string;

  /** The background making of missing shard directories (makeShards), while it runs or once done. */
  private shardFill: Promise<void> | undefined;
  private closing = false;

  private constructor(private readonly dir: string) {
    this.bucket = basename(dir) || 'files';
  }

  /** Opens (creating) the directory; clears temporary files older than an hour. */
  static async open(dir: string): Promise<LocalDiskStore> {
    const tmp = join(dir, 'tmp');
    await mkdir(tmp, { recursive: true });
    // Temporary files of writes that died with their process. An hour old: no live upload
    // (other processes may share the directory) is still writing to it.
    const cutoff = Date.now() - 60 * 60 * 1000;
    for (const name of await readdir(tmp)) {
      const s = await stat(join(tmp, name)).catch(() => undefined);
      if (s && s.mtimeMs < cutoff) await rm(join(tmp, name), { force: true });
    }
    return new LocalDiskStore(dir);
  }

  private pathOf(location: string): string {
    const id = checked(location);
    return join(this.dir, id.slice(0, 2), id);
  }

  /**
   * Callback fs calls on a plain descriptor, not a FileHandle (no handle object and promises
   * per call), and the descriptor's close is not waited for once the bytes are synced
   * (docs/benchmarks.md, "Uploads before Fastify").
   */
  async write(location: string, body: Readable, opts: { maxBytes: number; exclusive?: boolean; declaredBytes?: number }): Promise<StoredBlob> {
    const target = this.pathOf(location);
    const temp = join(this.dir, 'tmp', `${randomBytes(12).toString('hex')}.part`);
    // Opened before the body is read (so a refused body never races the file's creation), and
    // kept open until the end: written, renamed and fsynced through this one descriptor.
    const fd = await openFd(temp, 'wx');
    // A large upload is hashed on the md5 thread, overlapping with receiving (off-thread-md5.ts);
    // a request's smaller body on this thread after its chunks went to the file, so that the
    // hash's tail overlaps the link and fsyncs below instead of coming before them
    // (docs/benchmarks.md, "Files": the bare floor's 1 MiB uploads were about 15 % faster so).
    // Other bodies (declaredBytes unknown: not an HTTP request's) are hashed as they come.
    const declared = opts.declaredBytes ?? Number.NaN;
    const md5 = declared >= OFF_THREAD_MD5_MIN_BYTES ? remoteMd5() : declared >= 0 ? 'later' as const : undefined;
    const sink = new HashingFileSink(fd, opts.maxBytes, SYNC_EVERY_BYTES, md5);
    let renamed = false;
    try {
      await pumpInto(body, sink);
      // A deferred md5's last chunks are hashed while the file is placed and synced.
      const hashed = sink.hashed();
      const place = opts.exclusive ? () => placeExclusive(temp, target) : () => rename(temp, target);
      await place().catch(async (err: NodeJS.ErrnoException) => {
        // No shard directory yet (made on first need, not checked before every upload), or it
        // was removed behind this process's back: make it.
        if (err.code !== 'ENOENT') throw err;
        await mkdir(join(this.dir, location.slice(0, 2)), { recursive: true });
        await place();
      });
      renamed = true;
      // The bytes and the name reach the disk before this returns, so before the caller commits
      // the record: an upload answered 200 survives a power loss. Issued together, the two
      // fsyncs cost about one journal commit (ext4), no more than the file's fsync alone. An
      // exclusive placement linked the file: its temporary name goes at the same time (a crash
      // leaves it to the next start's sweep of tmp/).
      await Promise.all([fsyncFd(fd), syncDirectory(join(this.dir, location.slice(0, 2))), opts.exclusive ? unlinkQuietly(temp) : undefined, hashed]);
    } catch (err) {
      // No write of the sink may still run when the descriptor is closed (hashing-file-sink.ts).
      if (!sink.closed) await once(sink, 'close').catch(() => {});
      await closeFd(fd).catch(() => {});
      await rm(renamed ? target : temp, { force: true });
      if (renamed && opts.exclusive) await rm(temp, { force: true });
      throw err;
    }
    // Nothing uses the descriptor any more: its close runs while the caller commits.
    fsClose(fd, () => {});
    return { size: sink.size, md5: sink.digest() };
  }

  async read(location: string, range?: ByteRange): Promise<Readable | undefined> {
    const path = this.pathOf(location);
    // Opened first, so that a missing file is "undefined", not a stream that errors later.
    const fh = await open(path, 'r').catch(() => undefined);
    if (!fh) return undefined;
    return fh.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  /**
   * Callback fs calls, not a FileHandle: no handle object and promise per call, and the close
   * is left to run after the bytes are handed back instead of delaying the answer by one more
   * trip through the thread pool (docs/benchmarks.md, "Downloads and large uploads").
   */
  readWhole(location: string, size: number): Promise<Buffer | undefined> {
    const path = this.pathOf(location);
    return new Promise((resolve, reject) => {
      fsOpen(path, 'r', (openErr, fd) => {
        if (openErr) return resolve(undefined);
        const buf = Buffer.allocUnsafe(size);
        const finish = (err: Error | null, got: number) => {
          fsClose(fd, () => {});
          if (err) reject(err);
          else resolve(got === size ? buf : buf.subarray(0, got));
        };
        const readFrom = (got: number) => {
          fsRead(fd, buf, got, size - got, got, (err, n) => {
            if (err || n === 0 || got + n >= size) return finish(err, got + (n || 0));
            readFrom(got + n);
          });
        };
        readFrom(0);
      });
    });
  }

  async stat(location: string): Promise<StoredBlob | undefined> {
    const path = this.pathOf(location);
    const s = await stat(path).catch(() => undefined);
    if (!s) return undefined;
    return { size: s.size, md5: await md5OfFile(path) };
  }

  async remove(location: string): Promise<void> {
    await rm(this.pathOf(location), { force: true });
  }

  async directUpload(): Promise<undefined> {
    return undefined;
  }

  /**
   * Makes the shard directories that do not exist yet, `width` at a time, and then fsyncs the
   * store's directory once (their names are durable). Without them, an upload into a missing
   * shard pays a failed link, a mkdir and the link again on its own critical path: on a new
   * store that is most of the first few thousand uploads, about 0.5 ms of server CPU each
   * (docs/benchmarks.md, "Files"). Meant to run in the background of a server's start: never
   * rejects, stops at the first directory it cannot make (the upload path still makes a missing
   * shard itself), and `close` stops it and waits for the directories being made. A store whose
   * shards all exist pays one readdir.
   */
  makeShards(width = 4): Promise<void> {
    this.shardFill ??= this.fillShards(width);
    return this.shardFill;
  }

  private async fillShards(width: number): Promise<void> {
    const present = new Set(await readdir(this.dir).catch(() => SHARDS));
    const missing = SHARDS.filter((s) => !present.has(s));
    let next = 0;
    let failed = false;
    await Promise.all(Array.from({ length: width }, async () => {
      while (!this.closing && !failed && next < missing.length) {
        if (!(await makeDirectory(join(this.dir, missing[next++])))) failed = true;
      }
    }));
    if (missing.length && !this.closing && !failed) await syncDirectory(this.dir).catch(() => {});
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.shardFill;
  }
}
