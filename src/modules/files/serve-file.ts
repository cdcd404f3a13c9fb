import { finished } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../module-api/errors.ts';
import { committedByKey, sizeOf, type FileRecord } from './file-records.ts';
import { contentDisposition, etagMatches, mayRenderInline, parseRange } from './file-headers.ts';
import { isValidKey } from './file-key.ts';
import type { FilesService } from './files-service.ts';
import { thumbnailResponse } from './thumbnail.ts';
import { WHOLE_READ_MAX_BYTES, wholeReads } from './whole-file-reads.ts';

/** A year: a key never changes its bytes (keys are not reused), so caches may keep them. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).headers({ 'cache-control': 'no-store' }).send(new ApiError('notFound', 'File not found.').toJSON());
}

/** 429 past the client address's rate limit; not cached, it ends with the window. */
function tooMany(reply: FastifyReply, wait: number): FastifyReply {
  return reply.code(429).headers({ 'cache-control': 'no-store', 'retry-after': String(wait) }).send(new ApiError('tooManyRequests').toJSON());
}

/** Headers every answer about a stored file carries. */
export function fileHeaders(row: FileRecord, etag: string): Record<string, string> {
  const inline = mayRenderInline(row.mime_type);
  return {
    etag,
    'cache-control': CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
    // Even a file that slipped through as inline can run nothing in this origin.
    'content-security-policy': 'sandbox',
    'content-disposition': contentDisposition(row.name, inline),
    'accept-ranges': 'bytes',
  };
}

/**
 * Sends a small file read whole (whole-file-reads.ts); false (nothing sent) when it is not
 * small, the store cannot, or the budget is spent: then the caller streams it. (A boolean, not
 * the reply: a reply is thenable, and awaiting it waits for the end of the response.)
 */
async function sendWhole(svc: FilesService, row: FileRecord, size: number, headers: Record<string, string>, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (size === 0 || size > WHOLE_READ_MAX_BYTES || !svc.store.readWhole || !wholeReads.take(size)) return false;
  let bytes: Buffer | undefined;
  try {
    bytes = await svc.store.readWhole(row.blob, size);
  } catch (err) {
    wholeReads.give(size);
    throw err;
  }
  if (!bytes) {
    wholeReads.give(size);
    req.log.warn({ key: row.key }, 'file bytes missing from storage');
    notFound(reply);
    return true;
  }
  if (bytes.length !== size) req.log.warn({ key: row.key, size, found: bytes.length }, 'file shorter on storage than recorded');
  // The socket holds the buffer until it is written: given back once the response is over
  // (finished, or the client went away, even before this line).
  finished(reply.raw, () => wholeReads.give(size));
  reply.code(200).headers({ ...headers, 'content-type': row.mime_type, 'content-length': String(bytes.length) }).send(bytes);
  return true;
}

/** The key of a /files/<key> request, undefined when it cannot be a key. */
function keyOf(req: FastifyRequest): string | undefined {
  const path = req.url.split('?')[0].slice('/files/'.length);
  let key: string;
  try {
    key = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  return isValidKey(key) ? key : undefined;
}

/**
 * GET /files/<key>: the bytes of a committed file with Content-Type, Content-Length, ETag (its
 * md5), Range (206/416), If-None-Match (304) and a year of caching; a `?imageView/...` query
 * gets a thumbnail. File urls are public, as on LeanCloud: the unguessable key is the
 * capability, and the `_File` ACL guards the record, not the bytes.
 *
 * Every GET counts one request against the client address's rate limit (http/rate-limit.ts),
 * before its record is looked up: a refused one costs no statement. Only the address: a file
 * url is fetched by browsers and image tags, with no session (and no app keys) to count.
 */
export async function serveFile(svc: FilesService, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const wait = svc.limiter.take(req.ip, undefined, 1);
  if (wait > 0) return tooMany(reply, wait);
  const key = keyOf(req);
  const row = key ? await committedByKey(svc.app.db, key) : undefined;
  if (!row) return notFound(reply);
  const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  if (query.startsWith('imageView')) return thumbnailResponse(svc, row, query, req, reply);
  const etag = `"${row.md5 ?? row.object_id}"`;
  const headers = fileHeaders(row, etag);
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).headers(headers).send();
  const size = sizeOf(row);
  const ifRange = req.headers['if-range'];
  const asked = ifRange && ifRange !== etag ? { kind: 'full' as const } : parseRange(req.headers.range, size);
  if (asked.kind === 'unsatisfiable') {
    return reply.code(416).headers({ ...headers, 'content-range': `bytes */${size}` }).send();
  }
  const range = asked.kind === 'partial' ? asked.range : undefined;
  if (!range && req.method === 'GET') {
    if (await sendWhole(svc, row, size, headers, req, reply)) return reply;
  }
  const body = size === 0 ? undefined : await svc.store.read(row.blob, range);
  if (size > 0 && !body) {
    req.log.warn({ key: row.key }, 'file bytes missing from storage');
    return notFound(reply);
  }
  reply.headers({ ...headers, 'content-type': row.mime_type });
  if (range) {
    reply.code(206).headers({ 'content-range': `bytes ${range.start}-${range.end}/${size}`, 'content-length': String(range.end - range.start + 1) });
  } else {
    reply.code(200).header('content-length', String(size));
  }
  return reply.send(body ?? '');
}
