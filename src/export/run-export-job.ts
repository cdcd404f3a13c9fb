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
import { nowOf, type AppContext } from '../app-context.ts';
import { classHeader, joinHeader } from './archive-layout.ts';
import { finishJob, saveProgress, type ExportJobRow } from './export-jobs.ts';
import type { ExportOptions } from './export-options.ts';
import { classPage, joinPage } from './export-pages.ts';
import { storedExportParams, type ExportParams } from './export-params.ts';
import { parseProgress, type ExportProgress, type FileProgress } from './export-progress.ts';
import { downloadToken, tokenHash } from './download-link.ts';
import { packArchive } from './pack-archive.ts';
import { planUnits, type ExportUnit } from './plan-units.ts';
import { spoolIntact, spoolPages } from './spool-file.ts';
import { readYielding, type PageSizer } from './yielding-page.ts';

/** Thrown when a job must stop without failing (lease lost, shutdown). */
export class JobInterrupted extends Error {}

/** What running one job needs. */
export interface JobRun {
  app: AppContext;
  job: ExportJobRow;
  owner: string;
  opts: ExportOptions;
  /** Aborted when the process stops or the lease is lost. */
  signal: AbortSignal;
}

/** Where a job's archive lives. */
export function archivePath(dir: string, jobId: string): string {
  return join(dir, `${jobId}.tar.gz`);
}

/** Where a job's spool files live while it runs. */
export function workDir(dir: string, jobId: string): string {
  return join(dir, `${jobId}.work`);
}

/**
 * File name of an entry inside the work directory: a hash of the entry name (entry names may
 * hold ':' and be long), stable across runs so that a resumed job finds its files.
 */
function spoolName(entry: string): string {
  return `${createHash('sha256').update(entry).digest('hex').slice(0, 24)}.part`;
}

async function spoolUnit(run: JobRun, params: ExportParams, unit: ExportUnit, path: string, resume: FileProgress | undefined, checkpoint: (s: FileProgress) => Promise<void>): Promise<void> {
  if (unit.kind === 'schema') {
    await writeFile(path, unit.content);
    await checkpoint({ bytes: Buffer.byteLength(unit.content), rows: 1, complete: true });
    return;
  }
  const { db } = run.app;
  const { pageSize, pageDelayMs } = run.opts;
  // The schema once per unit: its Relation fields give every exported row their markers.
  const schema = unit.kind === 'class' ? await run.app.classes.find(unit.className) : undefined;
  let first = true;
  // Stops the retries of a page, like the pause between pages, when the job is stopped.
  const pause = async (ms: number) => {
    await sleep(ms, undefined, { signal: run.signal }).catch(() => {});
    if (run.signal.aborted) throw new JobInterrupted('stopped');
  };
  const sizer: PageSizer = { size: pageSize, max: pageSize };
  await spoolPages({
    path,
    resume,
    header: unit.kind === 'class' ? classHeader(unit.className) : joinHeader(unit.className, unit.key, unit.relatedClass),
    next: (cursor) => readYielding(sizer, (limit) => (unit.kind === 'class' ? classPage(db, unit.className, params, cursor, limit, schema) : joinPage(db, unit.className, unit.key, params, cursor, limit)), { pause }),
    between: async () => {
      if (run.signal.aborted) throw new JobInterrupted('stopped');
      if (pageDelayMs > 0 && !first) await sleep(pageDelayMs, undefined, { signal: run.signal }).catch(() => {});
      first = false;
      if (run.signal.aborted) throw new JobInterrupted('stopped');
    },
    checkpoint,
  });
}

/** Runs the job; resolves when it is done (or throws: JobInterrupted, or the reason it failed). */
export async function runExportJob(run: JobRun): Promise<{ bytes: number; expiresAt: Date }> {
  const { app, job, owner, opts } = run;
  const params = storedExportParams(job.params);
  const progress: ExportProgress = parseProgress(job.progress);
  const work = workDir(opts.dir, job.id);
  await mkdir(work, { recursive: true });
  const units = await planUnits(app, params);
  const checkpointOf = (entry: string) => async (state: FileProgress) => {
    progress.files[entry] = state;
    if (!(await saveProgress(app.db, job.id, owner, progress))) throw new JobInterrupted('lease lost');
  };
  const entries: { name: string; path: string }[] = [];
  for (const unit of units) {
    const path = join(work, spoolName(unit.entry));
    entries.push({ name: unit.entry, path });
    const done = progress.files[unit.entry];
    if (done?.complete && (await spoolIntact(path, done))) continue;
    await spoolUnit(run, params, unit, path, done?.complete ? undefined : done, checkpointOf(unit.entry));
  }
  if (run.signal.aborted) throw new JobInterrupted('stopped');
  const bytes = await packArchive(entries, archivePath(opts.dir, job.id), new Date());
  const token = downloadToken(app.keys.serverSecret, job.id);
  const expiresAt = new Date(nowOf(app).getTime() + opts.linkTtlMs);
  if (!(await finishJob(app.db, job.id, owner, { tokenHash: tokenHash(token), bytes, expiresAt }))) throw new JobInterrupted('lease lost');
  await rm(work, { recursive: true, force: true });
  return { bytes, expiresAt };
}
