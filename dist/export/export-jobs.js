/**
 * The export job table (_larder_export_jobs, migration 6). Leases use the database clock
 * (`now()`), so processes on several machines agree on when a lease has run out; a job is
 * changed only by the holder of its lease (`lease_owner`), so a runner that lost its lease
 * (it stalled, another process took over) can no longer write.
 */
import { randomInt } from 'node:crypto';
import { sql } from '../sql/fragment.js';
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Job ids look like LeanCloud's: 48 letters and digits (leancloud-behaviour §2.3). */
export const JOB_ID = /^[A-Za-z0-9]{48}$/;
/** A new random job id (285 bits). */
export function newJobId() {
    let id = '';
    for (let i = 0; i < 48; i++)
        id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
    return id;
}
const COLUMNS = sql `id, status, params, progress, email, token_hash, archive_bytes, expires_at, reason, lease_owner, attempts`;
/** Inserts a new running job with no lease: the first process to claim it runs it. */
export async function insertJob(db, params) {
    const id = newJobId();
    await db.query(sql `INSERT INTO _larder_export_jobs (id, status, params, email, created_at, updated_at)
    VALUES (${id}, 'running', ${JSON.stringify(params)}::jsonb, ${params.email ?? null}, now(), now())`);
    return id;
}
/** One job by id, or undefined. */
export async function getJob(db, id) {
    const rows = await db.query(sql `SELECT ${COLUMNS} FROM _larder_export_jobs WHERE id = ${id}`);
    return rows[0];
}
/** Running jobs whose lease is held by someone else (start-up check for dead owners on this host). */
export async function leasedJobs(db) {
    return db.query(sql `SELECT id, lease_owner FROM _larder_export_jobs WHERE status = 'running' AND lease_owner IS NOT NULL AND lease_until >= now()`);
}
/** Ends the lease of a job (its owner is dead or stopping), so that the next claim takes it at once. */
export async function breakLease(db, id, deadOwner) {
    await db.query(sql `UPDATE _larder_export_jobs SET lease_until = now() - interval '1 second' WHERE id = ${id} AND lease_owner = ${deadOwner}`);
}
/**
 * Takes the oldest running job whose lease has run out (or was never taken), for `owner`.
 * SKIP LOCKED: two processes claiming at once take different jobs, never the same one.
 */
export async function claimJob(db, owner, leaseMs) {
    const rows = await db.query(sql `UPDATE _larder_export_jobs
    SET lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1, updated_at = now()
    WHERE id = (SELECT id FROM _larder_export_jobs WHERE status = 'running' AND (lease_until IS NULL OR lease_until < now())
                ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING ${COLUMNS}`);
    return rows[0];
}
/** Extends the lease; false when `owner` no longer holds it. */
export async function renewLease(db, id, owner, leaseMs) {
    const rows = await db.query(sql `UPDATE _larder_export_jobs SET lease_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${id} AND lease_owner = ${owner} AND status = 'running' RETURNING id`);
    return rows.length > 0;
}
/** Stores a checkpoint; false when `owner` no longer holds the lease. */
export async function saveProgress(db, id, owner, progress) {
    const rows = await db.query(sql `UPDATE _larder_export_jobs SET progress = ${JSON.stringify(progress)}::jsonb, updated_at = now()
    WHERE id = ${id} AND lease_owner = ${owner} AND status = 'running' RETURNING id`);
    return rows.length > 0;
}
/** Marks the job done with its download token's hash and expiry; false when the lease was lost. */
export async function finishJob(db, id, owner, done) {
    const rows = await db.query(sql `UPDATE _larder_export_jobs SET status = 'done', token_hash = ${done.tokenHash}, archive_bytes = ${done.bytes},
      expires_at = ${done.expiresAt.toISOString()}::timestamptz, lease_owner = NULL, lease_until = NULL, updated_at = now(), finished_at = now()
    WHERE id = ${id} AND lease_owner = ${owner} AND status = 'running' RETURNING id`);
    return rows.length > 0;
}
/** Marks a running job failed (by its lease holder, or by anyone when `owner` is null). */
export async function failJob(db, id, owner, reason) {
    const rows = await db.query(sql `UPDATE _larder_export_jobs SET status = 'failed', reason = ${reason.slice(0, 1000)},
      lease_owner = NULL, lease_until = NULL, updated_at = now(), finished_at = now()
    WHERE id = ${id} AND status = 'running' AND (${owner}::text IS NULL OR lease_owner = ${owner}) RETURNING id`);
    return rows.length > 0;
}
/** Done jobs whose link has expired (their archives are to be deleted). */
export async function expiredJobs(db, now) {
    const rows = await db.query(sql `SELECT id FROM _larder_export_jobs
    WHERE status = 'done' AND expires_at < ${now.toISOString()}::timestamptz ORDER BY expires_at LIMIT 100`);
    return rows.map((r) => r.id);
}
/** Records that a job's archive is gone. */
export async function markExpired(db, id) {
    await db.query(sql `UPDATE _larder_export_jobs SET status = 'expired', token_hash = NULL, updated_at = now() WHERE id = ${id} AND status = 'done'`);
}
/** Job ids that may still have files on disk (to tell orphan files from live ones). */
export async function jobsWithFiles(db) {
    const rows = await db.query(sql `SELECT id FROM _larder_export_jobs WHERE status IN ('running', 'done')`);
    return new Set(rows.map((r) => r.id));
}
/** Deletes the records of jobs that ended (failed or expired) more than `days` days ago. */
export async function purgeOldJobs(db, now, days) {
    await db.query(sql `DELETE FROM _larder_export_jobs WHERE status IN ('failed', 'expired')
    AND finished_at < ${now.toISOString()}::timestamptz - make_interval(days => ${days}::int)`);
}
//# sourceMappingURL=export-jobs.js.map