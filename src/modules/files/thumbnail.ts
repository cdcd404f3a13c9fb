import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../module-api/errors.ts';
import { sizeOf, type FileRecord } from './file-records.ts';
import { etagMatches } from './file-headers.ts';
import type { FilesService } from './files-service.ts';
import { parseImageView, viewId, type ImageView, type ThumbnailFormat } from './image-view.ts';
import { filesError } from './files-errors.ts';

/**
 * sharp (libvips, about 30 MB of resident memory and 2.5 MB of heap) is loaded by the first
 * thumbnail, not at start-up: most servers never make one, and every process pays for its heap
 * on every request (docs/benchmarks.md, "Cloud code"). One libvips thread per image (its default
 * is one per core where sharp's allocator allows it, e.g. on musl): then `thumbnailSlots`
 * renders keep at most that many cores busy, whatever the platform.
 */
let sharpModule: Promise<typeof import('sharp')> | undefined;
function loadSharp(): Promise<typeof import('sharp')> {
  sharpModule ??= import('sharp').then((m) => {
    m.default.concurrency(1);
    return m;
  });
  return sharpModule;
}

/** Input formats thumbnails are made from: raster images only (no SVG or PDF rendering). */
const RASTER = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif', 'heif']);

/**
 * What a thumbnail that is not in the cache counts against the client address's rate limit,
 * besides the GET itself (LARDER_RATE_LIMIT_PER_IP, http/rate-limit.ts): a render costs the CPU
 * of tens to hundreds of ordinary requests (a 2000x1500 JPEG: 26-47 ms each, 21-38 a second made one
 * at a time in docs/benchmarks.md "Files"; a plain request well under a millisecond), and a client
 * asking for a new size each time makes one every time. At the default 6,000 a minute, a first visit to a page of 100 new thumbnails
 * (1,100) passes; one address cannot have more than about 545 renders a minute made for it.
 */
export const THUMBNAIL_RENDER_COST = 10;

async function readAll(svc: FilesService, row: FileRecord): Promise<Buffer> {
  const body = await svc.store.read(row.blob);
  if (!body) throw new ApiError('notFound', 'File not found.');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > svc.opts.thumbnailMaxInputBytes) {
      body.destroy();
      throw filesError('imageTooLarge');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Makes a thumbnail. The input is bounded twice: by bytes (before reading) and by pixels (from
 * the header, before decoding; sharp's limitInputPixels guards the decoder too), so a small
 * file that decodes to a huge image (a decompression bomb) is refused, not decoded.
 */
export async function makeThumbnail(svc: FilesService, row: FileRecord, view: ImageView, format: ThumbnailFormat): Promise<Buffer> {
  if (sizeOf(row) > svc.opts.thumbnailMaxInputBytes) throw filesError('imageTooLarge', `The image is larger than ${svc.opts.thumbnailMaxInputBytes} bytes, the most a thumbnail is made from.`);
  const input = await readAll(svc, row);
  const { default: sharp } = await loadSharp();
  const limit = svc.opts.thumbnailMaxPixels;
  const meta = await sharp(input, { limitInputPixels: false }).metadata().catch(() => undefined);
  if (!meta || !meta.format || !RASTER.has(meta.format) || !meta.width || !meta.height) throw filesError('notAnImage');
  if (meta.width * meta.height * Math.max(1, meta.pages ?? 1) > limit) {
    throw filesError('imageTooLarge', `The image has more than ${limit} pixels, the most a thumbnail is made from.`);
  }
  const fit = view.mode === 1 ? 'cover' : 'inside';
  try {
    const data = await sharp(input, { limitInputPixels: limit, failOn: 'error' })
      .rotate()
      .resize({ width: view.width, height: view.height, fit, withoutEnlargement: view.mode === 2 })
      .toFormat(format, { quality: view.quality })
      .toBuffer();
    return data;
  } catch {
    throw filesError('notAnImage', 'The image could not be decoded.');
  }
}

const TYPES: Record<ThumbnailFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

/** The format of a thumbnail asked without one: the file's own when it is one of ours, else png. */
function defaultFormat(mimeType: string): ThumbnailFormat {
  const own = (Object.keys(TYPES) as ThumbnailFormat[]).find((f) => TYPES[f] === mimeType.split(';')[0].trim());
  return own ?? 'png';
}

/** The root of the thumbnail cache (thumbnail-cache.ts). */
export function thumbnailRoot(opts: FilesService['opts']): string {
  return join(opts.dir, 'thumbnails');
}

/** Where the cached thumbnails of a file live (removed with the file: remove-file.ts). */
export function thumbnailDir(svc: FilesService, objectId: string): string {
  return join(thumbnailRoot(svc.opts), objectId.replace(/[^A-Za-z0-9]/g, ''));
}

/**
 * Answers GET /files/<key>?imageView/...: from the disk cache (`<files dir>/thumbnails/<objectId>/`,
 * named by a hash of the file and the parameters) or freshly made and then cached (temp + rename).
 * A render counts against the client address's rate limit first (refused: 429, nothing made),
 * then waits for one of the process's render slots (none in time: 429 `thumbnailsBusy`).
 */
export async function thumbnailResponse(svc: FilesService, row: FileRecord, query: string, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const view = parseImageView(query);
  const format = view.format ?? defaultFormat(row.mime_type);
  const id = createHash('sha256').update(`${row.md5 ?? ''}:${viewId(view)}:${format}`).digest('hex').slice(0, 40);
  const etag = `"t-${id}"`;
  const headers = { etag, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox', 'content-type': TYPES[format] };
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).headers(headers).send();
  const dir = thumbnailDir(svc, row.object_id);
  const path = join(dir, `${id}.${format}`);
  const hit = await svc.thumbnails.lookup(path);
  if (hit) return reply.code(200).headers({ ...headers, 'content-length': String(hit.size) }).send(hit.file.createReadStream());
  const wait = svc.limiter.take(req.ip, undefined, THUMBNAIL_RENDER_COST);
  if (wait > 0) {
    void reply.headers({ 'cache-control': 'no-store', 'retry-after': String(wait) });
    throw new ApiError('tooManyRequests');
  }
  // A second request for a thumbnail being made waits for that render instead of making it again.
  const rendering = svc.renderSlots.inProgress;
  let render = rendering.get(path);
  if (!render) {
    render = svc.renderSlots.run(() => makeThumbnail(svc, row, view, format)).then(async (data) => {
      await svc.thumbnails.store(path, data).catch((err: unknown) => req.log.warn({ err }, 'thumbnail cache write failed'));
      return data;
    }).finally(() => rendering.delete(path));
    rendering.set(path, render);
  }
  const data = await render.catch((err: unknown) => {
    // Busy for a moment, not for a rate-limit window: a second is what one render takes.
    if (err instanceof ApiError && err.errorName === 'thumbnailsBusy') void reply.headers({ 'cache-control': 'no-store', 'retry-after': '1' });
    throw err;
  });
  return reply.code(200).headers({ ...headers, 'content-length': String(data.length) }).send(data);
}
