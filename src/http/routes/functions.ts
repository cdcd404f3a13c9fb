/**
 * Cloud functions: `POST /1.1/functions/<name>` (AV.Cloud.run) and `POST /1.1/call/<name>`
 * (AV.Cloud.rpc), also under /1/, forwarded to the app's LeanEngine with the caller's
 * credentials, session, environment (X-LC-Prod) and address. The engine's answer (status,
 * content type, body) goes back as it was given. Bodies are streamed both ways, never held
 * whole, and bounded by LARDER_BODY_LIMIT. Only one path segment is a function name: hook paths
 * (`/1.1/functions/Review/beforeSave`) and `_ops/metadatas` are never reachable through here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.ts';
import { engineFailure } from '../../cloud/cloud-code.ts';
import type { StreamedAnswer } from '../../cloud/engine-client.ts';
import { byteLimit, readWhole } from '../../cloud/answer-body.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { HttpPolicy } from '../http-policy.ts';
import { callerFromHeaders, fromFallbackBody, type CallerInfo } from '../credentials.ts';
import { parseJsonBody } from '../json-body.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { beforeFastify, takeHandedOver } from '../pre-routing.ts';
import { functionFastPath, type PrefetchedCalls } from './function-fast-path.ts';
import { addAddressHeaders, admitCall, callEngine, enginePath, forwarded, passedBack, WHOLE_BYTES } from './function-forwarding.ts';

/** Reads a whole (small) body with a limit: small bodies, and the text/plain fallback of old browsers. */
async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError('payloadTooLarge');
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/** Headers of a fallback request, rebuilt from the credentials in its body. */
function fallbackHeaders(caller: CallerInfo): Record<string, string> {
  const c = caller.credentials;
  const out: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'x-lc-prod': caller.production ? '1' : '0' };
  if (c.appId) out['x-lc-id'] = c.appId;
  if (c.masterKey) out['x-lc-key'] = `${c.masterKey},master`;
  else if (c.key) out['x-lc-key'] = c.key;
  if (caller.sessionToken) out['x-lc-session'] = caller.sessionToken;
  return out;
}

/** The request as it goes to the engine: who the caller is, its headers and its body. */
async function outgoing(req: FastifyRequest, limit: number): Promise<{ caller: CallerInfo; headers: Record<string, string>; body: Readable | Buffer | undefined }> {
  const raw = req.body as Readable | undefined;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new ApiError('payloadTooLarge');
  const type = String(req.headers['content-type'] ?? '');
  if (raw && /^text\/plain/i.test(type) && !req.headers['x-lc-id'] && !req.headers['x-avoscloud-application-id']) {
    // Old browsers put the credentials into a text/plain body to avoid a CORS preflight.
    const parsed = parseJsonBody((await readAll(raw, limit)).toString('utf8'));
    const fallback = fromFallbackBody(parsed);
    if (fallback) {
      const body = Buffer.from(JSON.stringify(fallback.body));
      return { caller: fallback.caller, headers: { ...fallbackHeaders(fallback.caller), 'content-length': String(body.length) }, body };
    }
    const body = Buffer.from(JSON.stringify(parsed));
    return { caller: callerFromHeaders(req.headers), headers: { ...forwarded(req.headers), 'content-length': String(body.length) }, body };
  }
  const headers = forwarded(req.headers);
  // A body sent compressed arrives here decompressed (by @fastify/compress): its declared length
  // says nothing about what the engine gets, so it is streamed, chunked.
  const plainLength = req.headers['content-length'] !== undefined && req.headers['content-encoding'] === undefined;
  if (raw && plainLength && declared <= WHOLE_BYTES) {
    const body = await readAll(raw, Math.min(limit, WHOLE_BYTES));
    headers['content-length'] = String(body.length);
    return { caller: callerFromHeaders(req.headers), headers, body };
  }
  if (raw && plainLength) headers['content-length'] = String(declared);
  return { caller: callerFromHeaders(req.headers), headers, body: raw };
}

/**
 * A function name that is one path segment once decoded: `Review%2FbeforeSave` or `..` would be
 * a hook path or another endpoint to an engine (or a proxy before it) that decodes or
 * normalises the path, and hooks and `_ops` are not the clients' to call.
 */
function checkFunctionName(req: FastifyRequest): void {
  const name = (req.params as { name?: string }).name ?? '';
  if (/[/\\]/.test(name) || /^\.+$/.test(name)) throw new ApiError('notFound', `Route not found: ${req.method} ${req.url.split('?')[0].slice(0, 200)}`);
}

async function forward(app: AppContext, serverLimit: number, calls: PrefetchedCalls, limiter: RateLimiter, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  checkFunctionName(req);
  const limit = app.cloud?.options.bodyLimitBytes ?? serverLimit;
  // Sent by the fast path already (function-fast-path.ts), which left the answer to this route.
  const prefetched = takeHandedOver(calls, req.raw);
  if (prefetched && 'error' in prefetched) {
    if (prefetched.retryAfter !== undefined) void reply.header('retry-after', String(prefetched.retryAfter));
    throw prefetched.error;
  }
  return answerWith(prefetched?.answer ?? (await send(app, limiter, req, reply, limit)), limit, reply);
}

async function send(app: AppContext, limiter: RateLimiter, req: FastifyRequest, reply: FastifyReply, limit: number): Promise<StreamedAnswer> {
  const { caller, headers, body } = await outgoing(req, limit);
  const wait = admitCall(app, limiter, caller, req.ip);
  if (wait > 0) {
    if (body && !Buffer.isBuffer(body)) body.resume();
    void reply.header('retry-after', String(wait));
    throw new ApiError('tooManyRequests');
  }
  let tooLarge = false;
  const bounded = body && !Buffer.isBuffer(body) ? body.pipe(byteLimit(limit, () => ((tooLarge = true), new ApiError('payloadTooLarge')))) : body;
  const all = addAddressHeaders(headers, req.headers, req.socket.remoteAddress ?? '', req.ip);
  return callEngine(app, caller, enginePath(req.url), all, bounded, () => (tooLarge ? new ApiError('payloadTooLarge') : undefined));
}

/** Passes the engine's answer back: status, content type and body as they were given, bounded. */
async function answerWith(answer: StreamedAnswer, limit: number, reply: FastifyReply): Promise<FastifyReply> {
  const length = Number(answer.headers['content-length'] ?? 0);
  if (length > limit) {
    answer.body.destroy();
    throw new ApiError('engineAnswerTooLarge');
  }
  void reply.code(answer.status).headers(passedBack(answer.headers));
  if (answer.headers['content-length'] !== undefined && length <= WHOLE_BYTES) {
    let whole: Buffer;
    try {
      whole = await readWhole(answer, length);
    } catch (err) {
      throw engineFailure(err, 'function');
    }
    return reply.send(whole);
  }
  // A body that grows past the limit is cut: the client sees a broken answer, never an unbounded one.
  return reply.send(answer.body.pipe(byteLimit(limit, () => new ApiError('engineAnswerTooLarge'))));
}

/** Mounts the function routes with a body parser that leaves the body as a stream. */
export async function mountCloudFunctions(server: FastifyInstance, app: AppContext, bodyLimitBytes: number, opts: { policy: HttpPolicy; requestLog: boolean }): Promise<void> {
  server.addHook('onClose', async () => app.cloud?.close());
  const calls: PrefetchedCalls = new WeakMap();
  const fast = functionFastPath(app, { ...opts, bodyLimitBytes, limiter: server.larderRateLimiter }, calls);
  if (fast) beforeFastify(server, fast);
  await server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    const handler = (req: FastifyRequest, reply: FastifyReply) => forward(app, bodyLimitBytes, calls, server.larderRateLimiter, req, reply);
    for (const prefix of ['/1.1', '/1']) {
      for (const kind of ['functions', 'call']) scope.post(`${prefix}/${kind}/:name`, handler);
    }
  });
}
