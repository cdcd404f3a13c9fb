/**
 * Writes one archive entry to a spool file, page by page, with a checkpoint after each page.
 * A tar entry needs its size before its bytes, so entries are spooled to disk first and packed
 * afterwards (pack-archive.ts); memory holds one page at a time whatever the size of a class.
 * Writes go straight to the file descriptor at an explicit offset (no stream buffer), so the
 * checkpoint's byte count is what the file holds when the checkpoint is stored.
 */
import { open, stat } from 'node:fs/promises';
/** Opens the file where the checkpoint left it: cut back to `resume.bytes`, or new. */
async function openAt(path, header, resume) {
    if (resume && !resume.complete) {
        const size = await stat(path).then((s) => s.size, () => -1);
        // Shorter than the checkpoint (another machine's disk, or a lost write): start over.
        if (size >= resume.bytes) {
            const fh = await open(path, 'r+');
            await fh.truncate(resume.bytes);
            return { fh, state: { ...resume } };
        }
    }
    const fh = await open(path, 'w');
    const head = Buffer.from(header, 'utf8');
    await fh.write(head, 0, head.length, 0);
    return { fh, state: { bytes: head.length, rows: 0, complete: false } };
}
/** Spools an entry to its end and returns its final (complete) state. */
export async function spoolPages(opts) {
    const { fh, state: first } = await openAt(opts.path, opts.header, opts.resume);
    let state = first;
    try {
        for (;;) {
            await opts.between();
            const page = await opts.next(state.cursor);
            if (!page)
                break;
            const buf = Buffer.from(page.text, 'utf8');
            await fh.write(buf, 0, buf.length, state.bytes);
            state = { bytes: state.bytes + buf.length, rows: state.rows + page.rows, cursor: page.cursor, complete: false };
            await opts.checkpoint(state);
        }
        state = { ...state, complete: true };
        await opts.checkpoint(state);
        return state;
    }
    finally {
        await fh.close();
    }
}
/** True when a completed entry's file is still there with its recorded size. */
export async function spoolIntact(path, done) {
    return stat(path).then((s) => s.size === done.bytes, () => false);
}
//# sourceMappingURL=spool-file.js.map