/**
 * Packs the spooled entries into one `.tar.gz` (tar-stream + node:zlib), streaming each file
 * from disk. The archive is written to `<path>.part` and renamed when complete, so a file named
 * `<id>.tar.gz` is always a whole archive.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

/** One entry: its name in the archive and the file that holds its bytes. */
export interface PackEntry {
  name: string;
  path: string;
}

/** Writes the archive and returns its size in bytes. */
export async function packArchive(entries: readonly PackEntry[], outPath: string, mtime: Date): Promise<number> {
  const part = `${outPath}.part`;
  // Loaded by the first export, not at start-up: most processes never pack one, and every
  // process pays for its heap on every request (docs/benchmarks.md, "Cloud code").
  const { pack: tarPack } = await import('tar-stream');
  const pack = tarPack();
  const written = pipeline(pack, createGzip(), createWriteStream(part));
  try {
    for (const e of entries) {
      const { size } = await stat(e.path);
      // Files read back as 0644 regular files owned by nobody in particular.
      const entry = pack.entry({ name: e.name, size, mtime, mode: 0o644, type: 'file' });
      await pipeline(createReadStream(e.path), entry);
    }
    pack.finalize();
    await written;
  } catch (err) {
    pack.destroy(err instanceof Error ? err : new Error(String(err)));
    await written.catch(() => {});
    await unlink(part).catch(() => {});
    throw err;
  }
  await rename(part, outPath);
  return (await stat(outPath)).size;
}
