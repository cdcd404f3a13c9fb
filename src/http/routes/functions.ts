/**
 * Cloud functions: `POST /1.1/functions/<name>` (AV.Cloud.run) and `POST /1.1/call/<name>`
 * (AV.Cloud.rpc), also under /1/, forwarded to the app's LeanEngine with the caller's
 * credentials, session, environment (X-LC-Prod) and address. The engine's answer (status,
 * content type, body) goes back as it was given. Bodies are streamed both ways, never held
 * whole, and bounded by LARDER_BODY_LIMIT. Only one path segment is a function name: hook paths
 * (`/1.1/functions/Review/beforeSave`) and `_ops/metadatas` are never reachable through here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.ts';
import { engineFailure } from '../../cloud/cloud-code.ts';
import { byteLimit, readWhole } from '../../cloud/engine-client.ts';
import { ApiError } from '../../errors/api-error.ts';
import { callerFromHeaders, fromFallbackBody, type CallerInfo } from '../credentials.ts';
import { authenticateCaller } from '../dispatch.ts';
import { parseJsonBody } from '../json-body.ts';

/** Request headers passed on to the engine as the caller sent them (credentials included). */
const FORWARDED = [
  'content-type', 'user-agent', 'accept-language',
  'x-lc-id', 'x-lc-key', 'x-lc-sign', 'x-lc-session', 'x-lc-prod', 'x-lc-ua', 'x-lc-hook-key',
  'x-avoscloud-application-id', 'x-avoscloud-application-key', 'x-avoscloud-master-key', 'x-avoscloud-session-token',
  'x-avoscloud-request-sign', 'x-avoscloud-application-production',
  'x-uluru-application-id', 'x-uluru-application-key', 'x-uluru-master-key', 'x-uluru-session-token',
  'x-uluru-request-sign', 'x-uluru-application-production',
];

/**
 * Bodies and answers up to this size (with a declared length) are read whole and written in one
 * piece: a typical AV.Cloud.run call and its result are a few hundred bytes, and piping them
 * through stream transforms cost more CPU than the engine spent answering (docs/benchmarks.md).
 * Larger or chunked ones are streamed, never held whole.
 */
const WHOLE_BYTES = 64 * 1024;

/** Answer headers passed back (the rest, hop-by-hop ones included, are the engine's business). */
const PASSED_BACK = ['content-type', 'cache-control', 'set-cookie'];

/** What the engine is told about the client's address (LeanEngine reads X-Real-IP first). */
function addressHeaders(req: FastifyRequest): Record<string, string> {
  const peer = req.socket.remoteAddress ?? '';
  const before = req.headers['x-forwarded-for'];
  const chain = typeof before === 'string' && before !== '' ? `${before}, ${peer}` : peer;
  return { 'x-forwarded-for': chain, 'x-real-ip': req.ip };
}

function pick(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = headers[n];
    if (typeof v === 'string') out[n] = v;
    else if (Array.isArray(v)) out[n] = v.join(', ');
  }
  return out;
}

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
    return { caller: callerFromHeaders(req.headers), headers: { ...pick(req.headers, FORWARDED), 'content-length': String(body.length) }, body };
  }
  const headers = pick(req.headers, FORWARDED);
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

async function forward(app: AppContext, serverLimit: number, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const limit = app.cloud?.options.bodyLimitBytes ?? serverLimit;
  const { caller, headers, body } = await outgoing(req, limit);
  // The engine checks the credentials too; checking them here keeps unauthenticated traffic
  // away from it and answers with Larder's usual 401.
  authenticateCaller(app, caller);
  const cloud = app.cloud;
  if (!cloud) throw new ApiError('engineNotConfigured');
  let tooLarge = false;
  const bounded = body && !Buffer.isBuffer(body) ? body.pipe(byteLimit(limit, () => ((tooLarge = true), new ApiError('payloadTooLarge')))) : body;
  const path = req.url.split('?')[0].replace(/^\/1\//, '/1.1/');
  let answer;
  try {
    answer = await cloud.engine(caller.production).open({
      method: 'POST',
      path,
      headers: { ...headers, ...addressHeaders(req) },
      body: bounded,
      timeoutMs: cloud.options.functionTimeoutMs,
    });
  } catch (err) {
    if (tooLarge) throw new ApiError('payloadTooLarge');
    const e = engineFailure(err, 'function');
    if (e.errorName === 'engineUnreachable') {
      throw new ApiError('engineUnreachable', `The cloud code engine (${caller.production || !cloud.options.stagingUrl ? 'LARDER_ENGINE_URL' : 'LARDER_ENGINE_STAGING_URL'}) did not answer.`);
    }
    throw e;
  }
  const length = Number(answer.headers['content-length'] ?? 0);
  if (length > limit) {
    answer.body.destroy();
    throw new ApiError('engineAnswerTooLarge');
  }
  void reply.code(answer.status).headers(pick(answer.headers, PASSED_BACK));
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
export async function mountCloudFunctions(server: FastifyInstance, app: AppContext, bodyLimitBytes: number): Promise<void> {
  server.addHook('onClose', async () => app.cloud?.close());
  await server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    const handler = (req: FastifyRequest, reply: FastifyReply) => forward(app, bodyLimitBytes, req, reply);
    for (const prefix of ['/1.1', '/1']) {
      for (const kind of ['functions', 'call']) scope.post(`${prefix}/${kind}/:name`, handler);
    }
  });
}
