import { appSlot } from '../../module-api/app-state.ts';
import type { AppContext } from '../../module-api/context.ts';
import type { BlobStore } from './blob-store.ts';
import type { FilesOptions } from './files-options.ts';
import { randomId } from './file-key.ts';
import type { ThumbnailCache } from './thumbnail-cache.ts';
import type { RecentCommits } from './recent-commits.ts';
import type { IssuedTokens } from './issued-tokens.ts';
import type { RenderSlots } from './render-slots.ts';
import type { RateLimiter } from '../../module-api/http.ts';

/** Everything the files module's use-cases share: the app, the byte store and the options. */
export interface FilesService {
  readonly app: AppContext;
  readonly store: BlobStore;
  readonly opts: FilesOptions;
  /** The disk cache of thumbnails, under its size cap. */
  readonly thumbnails: ThumbnailCache;
  /** The thumbnails made at once, and those waiting to be (bounded). */
  readonly renderSlots: RenderSlots;
  /** The server's per-client limiter (http/rate-limit.ts): file GETs and thumbnail renders count against it. */
  readonly limiter: RateLimiter;
  /** LARDER_PUBLIC_URL: the server's own base URL when set (routes outside the dispatcher). */
  readonly serverPublicUrl?: string;
  /** Tokens whose uploads this process committed lately: fileCallback answers them without a statement. */
  readonly recentCommits: RecentCommits;
  /** Tokens this process issued that no PUT used yet: a PUT of one needs no claim statement. */
  readonly issuedTokens: IssuedTokens;
}

/** Base of file urls: LARDER_FILES_PUBLIC_URL, else this server's `/files`. */
export function filesBaseUrl(svc: FilesService, requestBase: string): string {
  return svc.opts.publicUrl ?? `${requestBase}/files`;
}

/** The url of a key (each segment is already URL-safe: file-key.ts). */
export function fileUrl(svc: FilesService, requestBase: string, key: string): string {
  return `${filesBaseUrl(svc, requestBase)}/${key}`;
}

/** Where a new blob goes: a random id on local disk, the key itself in a bucket. */
export function newBlobLocation(svc: FilesService, key: string): string {
  return svc.store.kind === 'local' ? randomId(32) : key;
}

// One service per app (not per process): two apps in one process (tests) stay apart.
const SERVICE = appSlot<FilesService>('files.service');

/** Registers the running service of an app (the module's mount). */
export function registerFilesService(svc: FilesService): void {
  svc.app.scope.put(SERVICE, svc);
}

/** Forgets the app's service (server closed: the mount closed its store itself). */
export function dropFilesService(svc: FilesService): void {
  svc.app.scope.release(SERVICE, svc);
}

/** The running file service of an app, if the files module is mounted (CLI tools, tests). */
export function filesServiceOf(app: AppContext): FilesService | undefined {
  return app.scope.get(SERVICE);
}
