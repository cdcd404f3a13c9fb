/**
 * The export runner of one server process. It claims running jobs whose lease is free (a new
 * job, or one whose runner died), runs one at a time, renews its lease while it runs, and
 * deletes expired archives. Several processes on one database share the work through the
 * lease: a job is run by one process at a time, and taken over when that process dies.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { nowOf, type AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import { isApiError } from '../errors/api-error.ts';
import type { Logger } from '../log.ts';
import { breakLease, claimJob, expiredJobs, failJob, jobsWithFiles, leasedJobs, markExpired, purgeOldJobs, renewLease, type ExportJobRow } from './export-jobs.ts';
import { mailOutcome } from './export-mail.ts';
import type { ExportOptions } from './export-options.ts';
import { exportJobs, exportJobsRunning } from '../metrics/core-metrics.ts';
import { archivePath, JobInterrupted, runExportJob, workDir } from './run-export-job.ts';
import { processAlive } from '../storage/data-dir-lock.ts';

/** Claims of one job before it is failed instead of tried again (each claim after the first followed a crash). */
const MAX_ATTEMPTS = 5;
/** Files in the export directory without a job are deleted once they are this old. */
const ORPHAN_AGE_MS = 60 * 60 * 1000;
/** Records of ended jobs (failed, expired) are kept this many days, then deleted. */
const KEEP_ENDED_DAYS = 30;
const JOB_FILE = /^([A-Za-z0-9]{48})\.(?:tar\.gz|tar\.gz\.part|work)$/;

const WORKER = appSlot<ExportWorker>('export.worker');
/** Lease owners of the runners alive in this process (process-wide: a lease names a process). */
const liveOwners = new Set<string>();

/** The runner serving `app` in this process, if one is mounted. */
export function workerOf(app: AppContext): ExportWorker | undefined {
  return app.scope.get(WORKER);
}


/**
 * True when a lease owner (`host:pid:nonce`) is certainly dead: it ran on this host, and its
 * process is gone, or it had this process's pid (a restarted container) but is no runner here.
 */
function deadOwner(owner: string): boolean {
  const parts = owner.split(':');
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const host = parts.slice(0, -2).join(':');
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  return pid === process.pid ? !liveOwners.has(owner) : !processAlive(pid);
}

function reasonOf(err: unknown): string {
  if (isApiError(err)) return err.message;
  return `The export stopped on an error: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
}

/** Runs export jobs for one app. */
export class ExportWorker {
  /** This runner's lease owner name. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  private stopped = false;
  private claiming = false;
  private current?: Promise<void>;
  private controller?: AbortController;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly app: AppContext, readonly opts: ExportOptions, private readonly logger: Logger) {}

  /** Starts polling; jobs left by dead runners on this host are taken over at once. */
  async start(): Promise<void> {
    // Stopped by the server's close (mountExport), or by closeApp if that never came.
    this.app.scope.put(WORKER, this, () => this.stop());
    liveOwners.add(this.owner);
    for (const j of await leasedJobs(this.app.db)) {
      if (deadOwner(j.lease_owner)) await breakLease(this.app.db, j.id, j.lease_owner);
    }
    const poll = setInterval(() => this.wake(), this.opts.pollMs);
    const sweep = setInterval(() => void this.cleanup(), this.opts.cleanupMs);
    poll.unref();
    sweep.unref();
    this.timers.push(poll, sweep);
    this.wake();
    void this.cleanup();
  }

  /** Looks for a job now (called after a job is created in this process). */
  wake(): void {
    void this.tick();
  }

  /** Stops: the current job is interrupted between two pages and its lease released for the next process. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.controller?.abort();
    await this.current;
    liveOwners.delete(this.owner);
    this.app.scope.release(WORKER, this);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.current || this.claiming) return;
    this.claiming = true;
    let job: ExportJobRow | undefined;
    try {
      job = await claimJob(this.app.db, this.owner, this.opts.leaseMs);
    } catch (err) {
      if (!this.stopped) this.logger.error({ err }, 'claiming an export job failed');
      return;
    } finally {
      this.claiming = false;
    }
    if (!job) return;
    if (this.stopped) {
      await breakLease(this.app.db, job.id, this.owner).catch(() => {});
      return;
    }
    const claimed = job;
    this.current = this.execute(claimed).finally(() => {
      this.current = undefined;
      if (!this.stopped) this.wake();
    });
  }

  private async execute(job: ExportJobRow): Promise<void> {
    const { db } = this.app;
    if (job.attempts > MAX_ATTEMPTS) {
      await this.fail(job, `The export was interrupted ${job.attempts - 1} times (its server stopped or crashed); it was given up.`);
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    const heartbeat = setInterval(() => {
      renewLease(db, job.id, this.owner, this.opts.leaseMs).then(
        (held) => held || controller.abort(),
        (err: unknown) => this.logger.warn({ err, jobId: job.id }, 'renewing an export lease failed'),
      );
    }, Math.max(1000, Math.floor(this.opts.leaseMs / 3)));
    heartbeat.unref();
    try {
      this.logger.info({ jobId: job.id, attempt: job.attempts, pageDelayMs: this.opts.pageDelayMs }, 'export job started');
      exportJobsRunning.inc();
      const { bytes, expiresAt } = await runExportJob({ app: this.app, job, owner: this.owner, opts: this.opts, signal: controller.signal });
      this.logger.info({ jobId: job.id, bytes }, 'export job done');
      exportJobs.inc({ outcome: 'done' });
      await mailOutcome(this.app, this.logger, job.id, job.email, { status: 'done', expiresAt });
    } catch (err) {
      if (err instanceof JobInterrupted) {
        // Stopping: let the next process take the job without waiting for the lease to run out.
        if (this.stopped) await breakLease(db, job.id, this.owner).catch(() => {});
        this.logger.info({ jobId: job.id, why: err.message }, 'export job interrupted; it resumes on its next claim');
        return;
      }
      this.logger.error({ err, jobId: job.id }, 'export job failed');
      exportJobs.inc({ outcome: 'failed' });
      await this.fail(job, reasonOf(err));
    } finally {
      exportJobsRunning.dec();
      clearInterval(heartbeat);
      this.controller = undefined;
    }
  }

  private async fail(job: ExportJobRow, reason: string): Promise<void> {
    try {
      if (!(await failJob(this.app.db, job.id, this.owner, reason))) return;
      // Best effort: the directory itself may be what failed.
      await rm(workDir(this.opts.dir, job.id), { recursive: true, force: true }).catch(() => {});
      await rm(`${archivePath(this.opts.dir, job.id)}.part`, { force: true }).catch(() => {});
      await mailOutcome(this.app, this.logger, job.id, job.email, { status: 'failed', reason });
    } catch (err) {
      this.logger.error({ err, jobId: job.id }, 'marking an export job failed did not work');
    }
  }

  /** Deletes archives whose link expired, old job records, and files of jobs that no longer exist. */
  async cleanup(): Promise<void> {
    try {
      const now = nowOf(this.app);
      for (const id of await expiredJobs(this.app.db, now)) {
        await rm(archivePath(this.opts.dir, id), { force: true });
        await markExpired(this.app.db, id);
      }
      await purgeOldJobs(this.app.db, now, KEEP_ENDED_DAYS);
      const live = await jobsWithFiles(this.app.db);
      for (const name of await readdir(this.opts.dir).catch(() => [] as string[])) {
        const m = JOB_FILE.exec(name);
        if (!m || live.has(m[1])) continue;
        const path = join(this.opts.dir, name);
        const age = Date.now() - (await stat(path).then((s) => s.mtimeMs, () => Date.now()));
        if (age > ORPHAN_AGE_MS) await rm(path, { recursive: true, force: true });
      }
    } catch (err) {
      if (!this.stopped) this.logger.warn({ err }, 'cleaning up exports failed');
    }
  }
}
