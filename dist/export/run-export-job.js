/**
 * Runs one claimed export job to its end: spool every entry (resuming from the job's
 * checkpoint), pack them into `<dir>/<id>.tar.gz`, and mark the job done. Stops with
 * `JobInterrupted` when the lease is lost or the process is stopping; the job then stays
 * `running` for its next claim.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { nowOf } from '../app-context.js';
import { classHeader, joinHeader } from './archive-layout.js';
import { finishJob, saveProgress } from './export-jobs.js';
import { classPage, joinPage } from './export-pages.js';
import { storedExportParams } from './export-params.js';
import { parseProgress } from './export-progress.js';
import { downloadToken, tokenHash } from './download-link.js';
import { packArchive } from './pack-archive.js';
import { planUnits } from './plan-units.js';
import { spoolIntact, spoolPages } from './spool-file.js';
/** Thrown when a job must stop without failing (lease lost, shutdown). */
export class JobInterrupted extends Error {
}
/** Where a job's archive lives. */
export function archivePath(dir, jobId) {
    return join(dir, `${jobId}.tar.gz`);
}
/** Where a job's spool files live while it runs. */
export function workDir(dir, jobId) {
    return join(dir, `${jobId}.work`);
}
/**
 * File name of an entry inside the work directory: a hash of the entry name (entry names may
 * hold ':' and be long), stable across runs so that a resumed job finds its files.
 */
function spoolName(entry) {
    return `${createHash('sha256').update(entry).digest('hex').slice(0, 24)}.part`;
}
async function spoolUnit(run, params, unit, path, resume, checkpoint) {
    if (unit.kind === 'schema') {
        await writeFile(path, unit.content);
        await checkpoint({ bytes: Buffer.byteLength(unit.content), rows: 1, complete: true });
        return;
    }
    const { db } = run.app;
    const { pageSize, pageDelayMs } = run.opts;
    let first = true;
    await spoolPages({
        path,
        resume,
        header: unit.kind === 'class' ? classHeader(unit.className) : joinHeader(unit.className, unit.key, unit.relatedClass),
        next: (cursor) => (unit.kind === 'class' ? classPage(db, unit.className, params, cursor, pageSize) : joinPage(db, unit.className, unit.key, params, cursor, pageSize)),
        between: async () => {
            if (run.signal.aborted)
                throw new JobInterrupted('stopped');
            if (pageDelayMs > 0 && !first)
                await sleep(pageDelayMs, undefined, { signal: run.signal }).catch(() => { });
            first = false;
            if (run.signal.aborted)
                throw new JobInterrupted('stopped');
        },
        checkpoint,
    });
}
/** Runs the job; resolves when it is done (or throws: JobInterrupted, or the reason it failed). */
export async function runExportJob(run) {
    const { app, job, owner, opts } = run;
    const params = storedExportParams(job.params);
    const progress = parseProgress(job.progress);
    const work = workDir(opts.dir, job.id);
    await mkdir(work, { recursive: true });
    const units = await planUnits(app, params);
    const checkpointOf = (entry) => async (state) => {
        progress.files[entry] = state;
        if (!(await saveProgress(app.db, job.id, owner, progress)))
            throw new JobInterrupted('lease lost');
    };
    const entries = [];
    for (const unit of units) {
        const path = join(work, spoolName(unit.entry));
        entries.push({ name: unit.entry, path });
        const done = progress.files[unit.entry];
        if (done?.complete && (await spoolIntact(path, done)))
            continue;
        await spoolUnit(run, params, unit, path, done?.complete ? undefined : done, checkpointOf(unit.entry));
    }
    if (run.signal.aborted)
        throw new JobInterrupted('stopped');
    const bytes = await packArchive(entries, archivePath(opts.dir, job.id), new Date());
    const token = downloadToken(app.keys.serverSecret, job.id);
    const expiresAt = new Date(nowOf(app).getTime() + opts.linkTtlMs);
    if (!(await finishJob(app.db, job.id, owner, { tokenHash: tokenHash(token), bytes, expiresAt })))
        throw new JobInterrupted('lease lost');
    await rm(work, { recursive: true, force: true });
    return { bytes, expiresAt };
}
//# sourceMappingURL=run-export-job.js.map