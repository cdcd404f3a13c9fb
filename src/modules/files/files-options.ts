/**
 * Settings of the files module, from the configuration (LARDER_FILE*, LARDER_S3_*,
 * LARDER_THUMBNAIL_*; docs/files.md), plus fixed timings.
 */
import { resolve } from 'node:path';
import { ConfigError, urlSetting, type Config } from '../../module-api/config.ts';

/** Connection to S3-compatible storage. */
export interface S3Options {
  endpoint?: string;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** How the files module works. */
export interface FilesOptions {
  backend: 'local' | 's3';
  /** Local backend: where bytes live. Both backends: the thumbnail cache lives in `<dir>/thumbnails`. */
  dir: string;
  maxBytes: number;
  /** Base of file urls; `<request base>/files` when unset. */
  publicUrl?: string;
  tokenTtlSeconds: number;
  s3?: S3Options;
  thumbnailMaxInputBytes: number;
  thumbnailMaxPixels: number;
  /** Total size of the thumbnail cache; the least recently used go first (0: no cache). */
  thumbnailCacheMaxBytes: number;
  /** Thumbnails one process makes at once (render-slots.ts). */
  thumbnailSlots: number;
  /** Thumbnails that may wait for a slot; more are refused with 429 at once. */
  thumbnailQueue: number;
  /** Longest wait for a slot, ms; then 429. */
  thumbnailWaitMs: number;
  /** How often the cleanup job runs, ms. */
  cleanupIntervalMs: number;
  /** LARDER_PUBLIC_URL, for answers of routes outside the API dispatcher. */
  serverPublicUrl?: string;
}

/** Defaults of everything the configuration does not set. */
export const FILE_DEFAULTS = {
  maxBytes: 100 * 1024 * 1024,
  tokenTtlSeconds: 3600,
  thumbnailMaxInputBytes: 30 * 1024 * 1024,
  thumbnailMaxPixels: 50_000_000,
  thumbnailCacheMaxBytes: 1024 * 1024 * 1024,
  thumbnailSlots: 2,
  // A browser opens 6 connections to a host (HTTP/1.1): a few pages' worth of new thumbnails
  // wait; a flood of new sizes is refused instead of queued for minutes.
  thumbnailQueue: 16,
  thumbnailWaitMs: 10_000,
  cleanupIntervalMs: 10 * 60 * 1000,
} as const;

/** The module's options from the configuration; a wrong combination is a ConfigError (exit 2). */
export function filesOptionsFromConfig(config: Config): FilesOptions {
  const backend = config.filesBackend;
  if (backend !== 'local' && backend !== 's3') throw new ConfigError(`LARDER_FILES_BACKEND must be local or s3, got ${JSON.stringify(backend)}`);
  const publicUrl = urlSetting('LARDER_FILES_PUBLIC_URL', config.filesPublicUrl, ['http:', 'https:'])?.replace(/\/+$/, '');
  let s3: S3Options | undefined;
  const pathStyle = config.s3ForcePathStyle;
  if (pathStyle !== undefined && !['true', 'false', '1', '0'].includes(pathStyle)) throw new ConfigError('LARDER_S3_FORCE_PATH_STYLE must be true or false');
  if (backend === 's3') {
    if (!config.s3Bucket) throw new ConfigError('LARDER_S3_BUCKET is required with LARDER_FILES_BACKEND=s3');
    if ((config.s3AccessKeyId === undefined) !== (config.s3SecretAccessKey === undefined)) {
      throw new ConfigError('LARDER_S3_ACCESS_KEY_ID and LARDER_S3_SECRET_ACCESS_KEY go together');
    }
    s3 = {
      endpoint: urlSetting('LARDER_S3_ENDPOINT', config.s3Endpoint, ['http:', 'https:']),
      region: config.s3Region,
      bucket: config.s3Bucket,
      forcePathStyle: pathStyle === 'true' || pathStyle === '1',
      credentials: config.s3AccessKeyId && config.s3SecretAccessKey ? { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey } : undefined,
    };
  }
  if (config.fileMaxBytes < 1) throw new ConfigError('LARDER_FILE_MAX_BYTES must be at least 1');
  if (config.thumbnailSlots < 1) throw new ConfigError('LARDER_THUMBNAIL_SLOTS must be at least 1');
  return {
    backend,
    dir: resolve(config.filesDir ?? resolve(config.dataDir, 'files')),
    maxBytes: config.fileMaxBytes,
    publicUrl,
    tokenTtlSeconds: Math.max(60, config.fileTokenTtlSeconds),
    s3,
    thumbnailMaxInputBytes: config.thumbnailMaxInputBytes,
    thumbnailMaxPixels: config.thumbnailMaxPixels,
    thumbnailCacheMaxBytes: config.thumbnailCacheMaxBytes,
    thumbnailSlots: config.thumbnailSlots,
    thumbnailQueue: FILE_DEFAULTS.thumbnailQueue,
    thumbnailWaitMs: FILE_DEFAULTS.thumbnailWaitMs,
    cleanupIntervalMs: FILE_DEFAULTS.cleanupIntervalMs,
    serverPublicUrl: config.publicUrl?.replace(/\/+$/, ''),
  };
}
