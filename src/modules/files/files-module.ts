import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppContext, Logger } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { FILE_CLASS, isValidObjectId } from '../../module-api/data.ts';
import type { LarderModule } from '../../module-api/larder-module.ts';
import { deleteObjects } from '../../module-api/writes.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../../module-api/http.ts';
import type { BlobStore } from './blob-store.ts';
import { ensureFileTables } from './file-records.ts';
import { createFileToken } from './file-tokens.ts';
import { fileCallback } from './file-callback.ts';
import { mountFilesHttp } from './files-http.ts';
import { uploadFastPath } from './upload-fast-path.ts';
import { FILE_DEFAULTS, type FilesOptions } from './files-options.ts';
import { dropFilesService, registerFilesService, type FilesService } from './files-service.ts';
import { ThumbnailCache } from './thumbnail-cache.ts';
import { RecentCommits } from './recent-commits.ts';
import { IssuedTokens } from './issued-tokens.ts';
import { thumbnailRoot } from './thumbnail.ts';
import { RenderSlots } from './render-slots.ts';
import { filesError } from './files-errors.ts';
import { openFileStore } from './files-cli.ts';
import { LocalDiskStore } from './local-disk-store.ts';
import { cleanupOnce, removeBytesOfDeleted } from './remove-file.ts';

/**
 * The file service (docs/files.md): uploads (fileTokens + PUT + fileCallback, and the direct
 * POST /1.1/files/<name>), serving and thumbnails under /files/<key>, removal of bytes with
 * their records, and a cleanup job for uploads that were never finished. Without options (tests,
 * embedded uses) files live on local disk in a fresh temporary directory.
 */
export function filesModule(given?: FilesOptions): LarderModule {
  let svc: FilesService | undefined;
  /** Files whose delete route removes the bytes itself (the after extension skips them). */
  const removingHere = new Set<string>();
  const service = (): FilesService => {
    if (!svc) throw new ApiError('notReady', 'The file service is starting.');
    return svc;
  };
  const destroy = async (req: ApiRequest): Promise<ApiResponse> => {
    const ids = req.params.objectId.split(',');
    for (const id of ids) if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
    // The record goes with the usual ACL and class-permission checks; then its bytes, before
    // answering (the after extension below leaves these ids to this route).
    for (const id of ids) removingHere.add(id);
    // fileCallback of these files reads their rows again, which the delete changes.
    service().recentCommits.forgetObjects(ids);
    service().issuedTokens.forgetObjects(ids);
    try {
      await deleteObjects(req.ctx, FILE_CLASS, ids);
      await removeBytesOfDeleted(service(), ids);
    } finally {
      for (const id of ids) removingHere.delete(id);
    }
    return ok({});
  };
  const routes: Route[] = [
    { method: 'POST', path: '/1.1/fileTokens', handler: async (req) => ok(await createFileToken(req.ctx, service(), req.body)) },
    { method: 'POST', path: '/1.1/fileCallback', handler: async (req) => ok(await fileCallback(service(), req.body)) },
    { method: 'DELETE', path: '/1.1/files/:objectId', handler: destroy },
    { method: 'DELETE', path: '/1.1/classes/files/:objectId', handler: destroy },
    // The class's own name too: deletes by the master key (or anyone the ACL allows) through
    // /1.1/classes/_File, also inside a batch, remove the bytes like file.destroy() does.
    { method: 'DELETE', path: '/1.1/classes/_File/:objectId', handler: destroy },
    {
      method: 'POST',
      path: '/1.1/qiniu',
      handler: async () => {
        throw new ApiError('badRequest', 'Qiniu uploads are not supported: use POST /1.1/fileTokens (provider "s3"), as current SDKs do.');
      },
    },
    {
      // Reached only from a batch (HTTP requests of this path are streamed by files-http.ts).
      method: 'POST',
      path: '/1.1/files/:name',
      handler: async () => {
        throw new ApiError('badRequest', 'POST /1.1/files/<name> takes the file bytes as the request body; it cannot be part of a batch.');
      },
    },
  ];
  return {
    name: 'files',
    routes: () => routes,
    async mount(server: FastifyInstance, app: AppContext, logger: Logger): Promise<void> {
      const tempDir = given ? undefined : await mkdtemp(join(tmpdir(), 'larder-files-'));
      const opts: FilesOptions = given ?? { backend: 'local', dir: tempDir as string, ...FILE_DEFAULTS };
      await ensureFileTables(app.db);
      const store = await openFileStore(opts);
      const thumbnails = new ThumbnailCache(thumbnailRoot(opts), opts.thumbnailCacheMaxBytes, (err, what) => logger.warn({ err }, what));
      const renderSlots = new RenderSlots({ slots: opts.thumbnailSlots, queue: opts.thumbnailQueue, waitMs: opts.thumbnailWaitMs }, () => filesError('thumbnailsBusy'));
      svc = {
        app, store, opts, thumbnails, renderSlots, limiter: server.larderRateLimiter, serverPublicUrl: opts.serverPublicUrl,
        recentCommits: new RecentCommits(opts.tokenTtlSeconds * 1000), issuedTokens: new IssuedTokens(),
      };
      registerFilesService(svc);
      await mountFilesHttp(server, svc);
      // PUT upload_url before Fastify routes it, when the server's settings allow (upload-fast-path.ts).
      server.larderPreRoute(uploadFastPath(svc, logger));
      const running = svc;
      // Any committed delete of a _File record (whatever route or batch made it) removes its
      // bytes; the file routes above do it themselves before answering, so that the url is gone
      // when destroy() resolves.
      const unregister = app.writes.register({
        name: 'files: remove bytes of deleted files',
        interest: (className, op) => (className === FILE_CLASS && op === 'delete' ? { after: true } : undefined),
        after: (event) => removingHere.has(event.objectId) ? undefined : removeBytesOfDeleted(running, [event.objectId]).catch((err: unknown) => logger.error({ err, objectId: event.objectId }, 'removing the bytes of a deleted file failed')),
      });
      let timer: NodeJS.Timeout | undefined;
      let pass: Promise<unknown> = Promise.resolve();
      const tick = () => {
        pass = cleanupOnce(running).catch((err: unknown) => logger.error({ err }, 'file cleanup failed'));
      };
      server.addHook('onReady', async () => {
        timer = setInterval(tick, opts.cleanupIntervalMs);
        timer.unref();
        // A configured local store (a server's) gets its missing shard directories made in the
        // background, not waited for: a new store's uploads then skip making them one by one.
        // Not a throwaway store (no options: tests and embedded uses start one per app, and
        // 3,844 directories cost about 0.3 s of CPU to make and as much to remove).
        if (given && store instanceof LocalDiskStore) void store.makeShards();
      });
      server.addHook('onClose', async () => {
        unregister();
        dropFilesService(running);
        clearInterval(timer);
        await pass;
        await store.close();
        if (tempDir) await rm(tempDir, { recursive: true, force: true });
      });
    },
  };
}
