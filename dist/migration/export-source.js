/**
 * The files of an export, wherever they are: a `.tar.gz`/`.tgz`/`.tar` archive (streamed with
 * tar-stream through zlib, never unpacked whole into memory or onto disk), a folder of export
 * files, or one file. Archive entries arrive in the archive's order and must be read before the
 * next one comes (`sequential`); folder files can be opened in any order, any time.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
/** A file stream that adds what it reads to `progress`. */
function counted(path, progress) {
    const stream = createReadStream(path);
    stream.on('data', (chunk) => {
        progress.read += chunk.length;
    });
    return stream;
}
/** What kind of source a path is (a CommandError-worthy Error when it does not exist). */
export async function sourceKind(path) {
    const s = await stat(path).catch(() => undefined);
    if (!s)
        throw new Error(`no such file or folder: ${path}`);
    if (s.isDirectory())
        return 'folder';
    return /\.(tar\.gz|tgz|tar)$/i.test(path) ? 'archive' : 'file';
}
/** The entries of a tar archive, gzipped unless the name ends in `.tar`. Throws when it is cut short. */
async function* archiveEntries(path, progress) {
    progress.total = (await stat(path)).size;
    const ex = extract();
    const gz = !/\.tar$/i.test(path);
    const done = (err) => {
        if (err)
            ex.destroy(err);
    };
    if (gz)
        pipeline(counted(path, progress), createGunzip(), ex, done);
    else
        pipeline(counted(path, progress), ex, done);
    for await (const entry of ex) {
        if (entry.header.type !== 'file') {
            entry.resume();
            continue;
        }
        yield { name: entry.header.name, sequential: true, stream: () => entry };
        // The consumer may have left bytes unread (a skipped entry): drain them.
        entry.resume();
    }
}
/** The regular files under a folder (recursively), sorted by name. */
async function* folderEntries(root, progress) {
    const names = (await readdir(root, { recursive: true })).map(String).sort();
    const files = [];
    for (const name of names) {
        const full = join(root, name);
        const s = await stat(full).catch(() => undefined);
        if (!s?.isFile())
            continue;
        files.push(full);
        progress.total += s.size;
    }
    for (const full of files)
        yield { name: relative(root, full), sequential: false, stream: () => counted(full, progress) };
}
/** Every file of the export at `path`; `progress` counts the bytes read. */
export async function* exportEntries(path, kind, progress) {
    if (kind === 'archive')
        yield* archiveEntries(path, progress);
    else if (kind === 'folder')
        yield* folderEntries(path, progress);
    else {
        progress.total = (await stat(path)).size;
        yield { name: path.split(/[\\/]/).pop() ?? path, sequential: false, stream: () => counted(path, progress) };
    }
}
//# sourceMappingURL=export-source.js.map