/**
 * Data export (leancloud-behaviour §2.3; docs/export.md):
 *
 *   POST /1.1/exportData          master key; starts a job: {status:"running", id, app_id}
 *   GET  /1.1/exportData/<id>     master key; {status, id, app_id} + download_url when done,
 *                                 reason when failed or expired
 *   GET  /larder/export/<id>.tar.gz?token=...   the archive; no app keys (a mailed link): the
 *                                 token is the credential. Unknown job, wrong token and expired
 *                                 link all answer the same 404.
 */
import { createReadStream } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nowOf } from '../../app-context.js';
import { ApiError } from '../../errors/api-error.js';
import { DOWNLOAD_ROUTE, downloadUrl, tokenMatches } from '../../export/download-link.js';
import { getJob, insertJob, JOB_ID } from '../../export/export-jobs.js';
import { EXPORT_TIMINGS } from '../../export/export-options.js';
import { parseExportParams } from '../../export/export-params.js';
import { ExportWorker, workerOf } from '../../export/export-worker.js';
import { selectClasses } from '../../export/plan-units.js';
import { archivePath } from '../../export/run-export-job.js';
import { toIso } from '../../objects/timestamps.js';
import { ok } from '../route.js';
function requireMaster(req) {
    if (!req.ctx.master)
        throw new ApiError('masterKeyRequired', 'Data export requires the master key.');
}
function linkExpired(app, job) {
    return job.expires_at === null || Date.parse(toIso(job.expires_at)) <= nowOf(app).getTime();
}
async function startExport(req) {
    requireMaster(req);
    const { app } = req.ctx;
    const params = parseExportParams(req.body, req.query);
    // Checked now so that a typo is answered at once (101), not as a failed job later.
    await selectClasses(app, params.classes);
    const id = await insertJob(app.db, params);
    workerOf(app)?.wake();
    return ok({ status: 'running', id, app_id: app.keys.appId });
}
async function exportStatus(req) {
    requireMaster(req);
    const { app } = req.ctx;
    const id = req.params.id;
    const job = JOB_ID.test(id) ? await getJob(app.db, id) : undefined;
    if (!job)
        throw new ApiError('notFound', `Export job '${id.slice(0, 60)}' not found.`);
    const base = { id: job.id, app_id: app.keys.appId };
    if (job.status === 'done' && !linkExpired(app, job)) {
        return ok({ status: 'done', ...base, download_url: downloadUrl(req.ctx.baseUrl, app.keys.serverSecret, job.id) });
    }
    if (job.status === 'done' || job.status === 'expired') {
        return ok({ status: 'expired', ...base, reason: 'The download link has expired and the archive was deleted; start a new export.' });
    }
    if (job.status === 'failed')
        return ok({ status: 'failed', ...base, reason: job.reason ?? 'The export failed.' });
    return ok({ status: 'running', ...base });
}
/** The export endpoints under /1.1. */
export const exportRoutes = [
    { method: 'POST', path: '/1.1/exportData', handler: startExport },
    { method: 'GET', path: '/1.1/exportData/:id', handler: exportStatus },
];
const DOWNLOAD_FILE = /^([A-Za-z0-9]{48})\.tar\.gz$/;
function notFound(reply) {
    // One answer for every refusal, so that a prober learns nothing about which part was wrong.
    return reply.code(404).headers({ 'cache-control': 'no-store' }).send(new ApiError('notFound', 'This download link does not exist or has expired.').toJSON());
}
/** Serves archives by their link. */
function mountDownload(server, app, opts, logger) {
    server.get(DOWNLOAD_ROUTE, { compress: false }, async (req, reply) => {
        const m = DOWNLOAD_FILE.exec(req.params.file);
        const token = req.query.token;
        if (!m || typeof token !== 'string' || token.length === 0 || token.length > 200)
            return notFound(reply);
        const job = await getJob(app.db, m[1]);
        if (!job || job.status !== 'done' || !tokenMatches(token, job.token_hash) || linkExpired(app, job))
            return notFound(reply);
        const path = archivePath(opts.dir, job.id);
        const size = await stat(path).then((s) => s.size, () => undefined);
        if (size === undefined) {
            logger.warn({ jobId: job.id, dir: opts.dir }, 'export archive missing (LARDER_EXPORT_DIR not shared between machines?)');
            return notFound(reply);
        }
        const name = `${app.keys.appId.replace(/[^A-Za-z0-9_-]/g, '')}-export-${job.id}.tar.gz`;
        return reply
            .headers({
            'content-type': 'application/gzip',
            'content-length': String(size),
            'content-disposition': `attachment; filename="${name}"`,
            'cache-control': 'no-store',
            'referrer-policy': 'no-referrer',
            'x-content-type-options': 'nosniff',
        })
            .send(createReadStream(path));
    });
}
/**
 * Mounts the download route and starts this process's export runner (stopped when the server
 * closes). Without options (embedded uses, tests) archives go to a fresh temporary directory.
 */
export async function mountExport(server, app, logger, given) {
    const opts = given ?? {
        dir: mkdtempSync(join(tmpdir(), 'larder-exports-')),
        linkTtlMs: 7 * 24 * 60 * 60 * 1000,
        pageDelayMs: 0,
        ...EXPORT_TIMINGS,
    };
    mountDownload(server, app, opts, logger);
    const worker = new ExportWorker(app, opts, logger);
    server.addHook('onReady', async () => worker.start());
    server.addHook('onClose', async () => {
        await worker.stop();
        // A directory of our own making is not found again by a later process: remove it.
        if (!given)
            await rm(opts.dir, { recursive: true, force: true });
    });
}
//# sourceMappingURL=export.js.map