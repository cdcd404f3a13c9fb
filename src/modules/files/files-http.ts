import type { IncomingHttpHeaders } from 'node:http';
import { finished, PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../module-api/http.ts';
import { ApiError } from '../../module-api/errors.ts';
import { contextFromHeaders } from '../../module-api/context.ts';
import { createFileRecord } from './new-file-record.ts';
import { receiveTokenUpload, storeAndCommit } from './receive-upload.ts';
import { removeFile } from './remove-file.ts';
import type { FilesService } from './files-service.ts';
import { serveFile } from './serve-file.ts';
import type { FileRecord } from './file-records.ts';
import { filesError } from './files-errors.ts';

/** The path of upload_url on local storage (the token follows). */
export const UPLOAD_PATH = '/larder/upload';

function baseUrlOf(svc: FilesService, req: FastifyRequest): string {
  return svc.serverPublicUrl ?? `${req.protocol}://${req.host}`;
}

/**
 * The request body as a stream that the store may consume or abandon. Abandoning it (limit
 * reached, storage failed) must not destroy the socket before the error answer is written, so
 * the store gets a pass-through; the connection is closed after the answer instead of reading
 * the rest of an oversized body (`closeAfter` asks for that).
 */
function bodyOf(source: Readable, closeAfter: () => void): Readable {
  const pass = new PassThrough();
  source.pipe(pass);
  // pipe() does not pass on a client that left halfway: without this the store would wait for
  // the rest of the body forever, its temporary file and descriptor kept and the token held.
  finished(source, (err) => {
    if (err) pass.destroy(err);
  });
  pass.on('error', () => {
    source.unpipe(pass);
    closeAfter();
  });
  return pass;
}

/** Refuses a body whose declared length is over the limit before reading any of it. */
function checkDeclaredLength(svc: FilesService, headers: IncomingHttpHeaders, closeAfter: () => void): void {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > svc.opts.maxBytes) {
    closeAfter();
    throw filesError('fileTooLarge', `The file is larger than ${svc.opts.maxBytes} bytes, the most this server accepts (LARDER_FILE_MAX_BYTES).`);
  }
}

/**
 * PUT <upload_url>: the bytes of one token's upload, stored and committed; resolves once the
 * file is. The Fastify route and the pre-routing handler (upload-fast-path.ts) both answer
 * with this, so they cannot differ: `body` is the request's raw body (undefined when Fastify
 * saw none), `closeAfter` marks the answer to close the connection (body left unread).
 */
export async function putUpload(svc: FilesService, token: string, headers: IncomingHttpHeaders, body: Readable | undefined, closeAfter: () => void): Promise<void> {
  checkDeclaredLength(svc, headers, closeAfter);
  if (body === undefined) throw new ApiError('badRequest', 'The upload has no body.');
  try {
    await receiveTokenUpload(svc, token, bodyOf(body, closeAfter), Number(headers['content-length'] ?? Number.NaN));
  } catch (err) {
    closeIfUnread(body, closeAfter);
    throw err;
  }
}

/**
 * An upload refused before its body was read (unknown or used token, deleted file) leaves the
 * rest of the body in the connection, where the next request of a keep-alive client would wait
 * behind it for ever: the answer closes the connection instead.
 */
function closeIfUnread(body: Readable, closeAfter: () => void): void {
  if (!(body as Readable & { complete?: boolean }).complete) closeAfter();
}

/**
 * POST /1.1/files/<name> with the bytes as the body (older REST API): record, bytes, commit.
 * Outside the API dispatcher, so it counts against the per-client limits here, as a dispatched
 * write does (http/rate-limit.ts): otherwise it would be a way to write past them.
 */
async function directUpload(svc: FilesService, limiter: RateLimiter, req: FastifyRequest<{ Params: { name: string } }>, reply: FastifyReply): Promise<FastifyReply> {
  const ctx = contextFromHeaders(svc.app, req.headers, baseUrlOf(svc, req));
  const closeAfter = () => void reply.header('connection', 'close');
  const wait = ctx.master ? 0 : limiter.take(req.ip, ctx.sessionToken, 1);
  if (wait > 0) {
    closeAfter();
    void reply.header('retry-after', String(wait));
    throw new ApiError('tooManyRequests');
  }
  checkDeclaredLength(svc, req.headers, closeAfter);
  const contentType = req.headers['content-type'];
  const file = await createFileRecord(ctx, svc, { name: req.params.name, mimeType: contentType, state: 'uploading' });
  const row: FileRecord = { object_id: file.objectId, key: file.key, blob: file.blob, state: 'uploading', mime_type: file.mimeType, name: file.name, size: null, md5: null };
  try {
    const stored = await storeAndCommit(svc, { row, body: bodyOf(req.body as Readable, closeAfter), declaredBytes: Number(req.headers['content-length'] ?? Number.NaN) });
    return reply.code(201).header('location', `${ctx.baseUrl}/1.1/files/${file.objectId}`).send({
      objectId: file.objectId, createdAt: file.createdAt, url: file.url, name: file.name, key: file.key,
      bucket: svc.store.bucket, mime_type: file.mimeType, size: stored.size,
    });
  } catch (err) {
    closeIfUnread(req.body as Readable, closeAfter);
    await removeFile(svc, file.objectId, ['uploading']);
    throw err;
  }
}

/**
 * Mounts what is not a JSON API route: PUT <upload_url> and POST /1.1/files/<name>, whose bodies
 * are raw bytes streamed to the store (never buffered: this scope has its own body parser), and
 * GET /files/<key>, the files themselves.
 */
export async function mountFilesHttp(server: FastifyInstance, svc: FilesService): Promise<void> {
  await server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The body stays a stream: handed to the handler unread.
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.put<{ Params: { token: string } }>(`${UPLOAD_PATH}/:token`, { compress: false }, async (req, reply) => {
      await putUpload(svc, req.params.token, req.headers, req.body as Readable | undefined, () => void reply.header('connection', 'close'));
      // Python and Go SDKs require exactly 200.
      return reply.code(200).send({});
    });
    for (const prefix of ['/1.1', '/1']) {
      scope.post<{ Params: { name: string } }>(`${prefix}/files/:name`, async (req, reply) => {
        if (req.body === undefined) throw new ApiError('badRequest', 'POST /1.1/files/<name> takes the file bytes as the body.');
        return directUpload(svc, server.larderRateLimiter, req, reply);
      });
    }
  });
  server.get('/files/*', { compress: false }, (req, reply) => serveFile(svc, req, reply));
}
