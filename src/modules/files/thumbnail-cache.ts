/**
 * The disk cache of thumbnails (`<files dir>/thumbnails/<objectId>/<hash>.<format>`) under a
 * global size cap (LARDER_THUMBNAIL_CACHE_MAX_BYTES; docs/files.md). Every SDK call of
 * `thumbnailURL(w, h)` with new sizes adds an entry, so without a cap the cache grows with
 * every size any client ever asked for.
 *
 * Least recently used goes first: a hit refreshes the entry's mtime (at most once a minute), and
 * when the cache passes its cap the oldest entries are removed until it is at 90 % of it. The
 * running total is an estimate kept per process (several processes may share the directory);
 * each sweep recounts from the disk, so the estimates cannot drift. A sweep never blocks a
 * response: it runs after the new entry is written, one at a time per process.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** An entry older than this is touched on a hit (keeps hits cheap). */
const TOUCH_AFTER_MS = 60_000;
/** A sweep brings the cache down to this share of its cap (so it does not sweep on every write). */
const LOW_WATER = 0.9;

interface Entry {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The thumbnail cache of one files directory. */
export class ThumbnailCache {
  private estimate: number | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    /** `<files dir>/thumbnails`. */
    readonly root: string,
    /** Total bytes the cache may hold; 0 disables caching. */
    readonly maxBytes: number,
    private readonly warn: (err: unknown, what: string) => void = () => {},
  ) {}

  /**
   * The cached entry, opened (a sweep may remove it meanwhile: an open file stays readable), or
   * undefined. A hit refreshes its age. The caller streams and so closes the handle.
   */
  async lookup(path: string): Promise<{ file: FileHandle; size: number } | undefined> {
    const file = await open(path, 'r').catch(() => undefined);
    if (!file) return undefined;
    try {
      const hit = await file.stat();
      const now = Date.now();
      if (now - hit.mtimeMs > TOUCH_AFTER_MS) void file.utimes(new Date(now), new Date(now)).catch(() => {});
      return { file, size: hit.size };
    } catch {
      await file.close();
      return undefined;
    }
  }

  /** Stores an entry (temp + rename), then sweeps when the cache is over its cap. */
  async store(path: string, data: Buffer): Promise<void> {
    if (this.maxBytes <= 0 || data.length > this.maxBytes) return;
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      await writeFile(temp, data);
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    this.estimate ??= await this.total();
    this.estimate += data.length;
    if (this.estimate > this.maxBytes) this.sweep();
  }

  /** Starts a sweep unless one is running; resolves when the running sweep is done. */
  sweep(): Promise<void> {
    this.sweeping ??= this.evict()
      .catch((err: unknown) => this.warn(err, 'thumbnail cache sweep failed'))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Bytes on disk now (a fresh count). */
  async total(): Promise<number> {
    return (await this.entries()).reduce((n, e) => n + e.size, 0);
  }

  private async evict(): Promise<void> {
    const entries = await this.entries();
    let total = entries.reduce((n, e) => n + e.size, 0);
    const target = Math.floor(this.maxBytes * LOW_WATER);
    if (total > this.maxBytes) {
      entries.sort((a, b) => a.mtimeMs - b.mtimeMs);
      for (const e of entries) {
        if (total <= target) break;
        await rm(e.path, { force: true });
        total -= e.size;
      }
    }
    this.estimate = total;
  }

  private async entries(): Promise<Entry[]> {
    const out: Entry[] = [];
    const dirs = await readdir(this.root).catch(() => [] as string[]);
    for (const d of dirs) {
      const names = await readdir(join(this.root, d)).catch(() => [] as string[]);
      for (const name of names) {
        if (name.endsWith('.part')) continue;
        const path = join(this.root, d, name);
        const s = await stat(path).catch(() => undefined);
        if (s?.isFile()) out.push({ path, size: s.size, mtimeMs: s.mtimeMs });
      }
    }
    return out;
  }
}
