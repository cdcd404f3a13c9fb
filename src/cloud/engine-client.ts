/**
 * The HTTP client Larder speaks to the LeanEngine app with: keep-alive connections per engine
 * (engine-connection.ts; cloud functions and hooks are many small requests), a deadline per
 * call, and answers either streamed (cloud functions, passed back as they are) or read whole up
 * to a limit (hooks).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { AnswerHead } from './answer-parser.ts';
import { EnginePool, type EngineConnection } from './engine-connection.ts';
import { EngineCallError } from './engine-call-error.ts';
import { readWhole } from './answer-body.ts';

/** One request to the engine. */
export interface EngineRequest {
  readonly method: 'GET' | 'POST';
  /** Path with query, e.g. /1.1/functions/hello. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A buffer, a stream (sent as it arrives), or nothing. */
  readonly body?: Buffer | Readable;
  readonly timeoutMs: number;
}

/** An answer whose body is still arriving. */
export interface StreamedAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
  /** Stops the deadline (the caller took over the body). */
  done(): void;
  /** True when the deadline cut the call. */
  timedOut(): boolean;
}

/**
 * An answer the client read whole itself because the caller asked for it once its head was in
 * (`open` with `whole`): no stream is made for it.
 */
export interface WholeAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly whole: Buffer;
}

/**
 * Decides, from an answer's status and headers, whether the client reads its body whole before
 * resolving. Asked only for answers framed by a Content-Length of at most WHOLE_MAX bytes.
 */
export type WantsWhole = (head: AnswerHead) => boolean;

/** Largest body `open` reads whole for a caller that asks (WantsWhole). */
const WHOLE_MAX = 64 * 1024;

/** An answer framed by a Content-Length of at most WHOLE_MAX (no transfer coding), and its length. */
function declaredSmall(head: AnswerHead): number | undefined {
  const cl = head.headers['content-length'];
  if (cl === undefined || head.headers['transfer-encoding'] !== undefined || head.status === 204 || head.status === 304 || !/^\d{1,6}$/.test(cl)) return undefined;
  const n = Number(cl);
  return n <= WHOLE_MAX ? n : undefined;
}

/** An answer read whole. */
export interface BufferedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

/** The request line and headers; throws on what cannot be written as HTTP. */
function requestHead(method: string, path: string, host: string, headers: Readonly<Record<string, string>>, framing: string): string {
  if (!/^\/[\x21-\x7e]*$/.test(path)) throw new EngineCallError('unreachable', 'invalid request path');
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'host' || lower === 'connection') continue;
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new EngineCallError('unreachable', `invalid request header ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}${framing}connection: keep-alive\r\n\r\n`;
}

/**
 * Sends a streamed request body on the connection; calls back once all of it was written. With
 * `heads` (no declared length) the body goes chunked, and the head waits for the first piece:
 * a body that turns out empty is sent with Content-Length: 0, as Node's client does.
 */
function streamBody(body: Readable, conn: EngineConnection, heads: { chunked: Buffer; empty: Buffer } | undefined, onError: (err: Error) => void, onSent: () => void): () => void {
  const socket = conn.socket;
  let started = heads === undefined;
  const onData = (chunk: Buffer) => {
    if (chunk.length === 0) return;
    if (!started) {
      started = true;
      socket.write(heads?.chunked as Buffer);
    }
    const ok = heads ? socket.write(`${chunk.length.toString(16)}\r\n`) && socket.write(chunk) && socket.write('\r\n') : socket.write(chunk);
    if (!ok) {
      body.pause();
      socket.once('drain', () => body.resume());
    }
  };
  const onEnd = () => {
    if (heads) socket.write(started ? '0\r\n\r\n' : heads.empty);
    detach();
    onSent();
  };
  const onFail = (err: Error) => {
    detach();
    onError(err);
  };
  const detach = () => {
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('error', onFail);
  };
  body.on('data', onData);
  body.on('end', onEnd);
  body.on('error', onFail);
  return detach;
}

/** A client of one engine base URL. */
export class EngineClient {
  readonly #base: URL;
  readonly #basePath: string;
  readonly #pool: EnginePool;

  constructor(baseUrl: string) {
    this.#base = new URL(baseUrl);
    this.#basePath = this.#base.pathname.replace(/\/+$/, '');
    this.#pool = new EnginePool(this.#base);
  }

  /** The base URL (for logs; never holds secrets). */
  get url(): string {
    return this.#base.origin;
  }

  /**
   * Sends a request; resolves once the answer's status and headers are in, or, when `whole`
   * says so for a small answer of declared length, once all of it is in (a WholeAnswer: the
   * common cloud function answer is passed back without a stream, function-fast-path.ts).
   */
  open(req: EngineRequest): Promise<StreamedAnswer>;
  open(req: EngineRequest, whole: WantsWhole): Promise<StreamedAnswer | WholeAnswer>;
  open(req: EngineRequest, whole?: WantsWhole): Promise<StreamedAnswer | WholeAnswer> {
    return new Promise((resolve, reject) => {
      const body = req.body;
      const isWhole = body === undefined || Buffer.isBuffer(body);
      const declared = req.headers['content-length'];
      let framing: string;
      if (isWhole) framing = body ? `content-length: ${body.length}\r\n` : req.method === 'POST' ? 'content-length: 0\r\n' : '';
      else framing = declared !== undefined && /^\d+$/.test(declared) ? `content-length: ${declared}\r\n` : 'transfer-encoding: chunked\r\n';
      const chunked = framing.startsWith('transfer-encoding');
      let head: string;
      let heads: { chunked: Buffer; empty: Buffer } | undefined;
      try {
        const headFor = (f: string) => requestHead(req.method, this.#basePath + req.path, this.#base.host, req.headers, f);
        head = headFor(framing);
        if (chunked) heads = { chunked: Buffer.from(head, 'latin1'), empty: Buffer.from(headFor('content-length: 0\r\n'), 'latin1') };
      } catch (err) {
        return reject(err);
      }
      const conn = this.#pool.take();
      let answer: Readable | undefined;
      // The answer being read whole (whole), its pieces and its size so far.
      let collected: { head: AnswerHead; chunks: Buffer[]; size: number } | undefined;
      let finished = false;
      let timedOut = false;
      // A streamed body that is not sent in full leaves the connection unusable for the next call.
      let sent = isWhole;
      let detach: (() => void) | undefined;
      const fail = (err: EngineCallError) => {
        clearTimeout(timer);
        detach?.();
        if (finished) return;
        finished = true;
        conn.destroy();
        if (answer) answer.destroy(err);
        else reject(collected ? new EngineCallError(err.kind, err.message, true) : err);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        fail(new EngineCallError('timeout', `no answer within ${req.timeoutMs} ms`));
      }, req.timeoutMs);
      // Head and whole body in one latin1 string (bytes for bytes): one write, and no Buffers to
      // make and join for it.
      conn.send(chunked ? undefined : isWhole && body ? head + body.toString('latin1') : head, {
        head: (h) => {
          if (whole && declaredSmall(h) !== undefined && whole(h)) {
            collected = { head: h, chunks: [], size: 0 };
            return;
          }
          answer = new Readable({
            read: () => conn.resume(),
            destroy: (err, cb) => {
              // The reader gave up before the end: the rest of the answer is never read.
              if (!finished) {
                finished = true;
                clearTimeout(timer);
                detach?.();
                conn.destroy();
              }
              cb(err);
            },
          });
          resolve({ status: h.status, headers: h.headers, body: answer, done: () => clearTimeout(timer), timedOut: () => timedOut });
        },
        data: (chunk) => {
          if (collected) {
            // The parser hands on no more than the declared length, which declaredSmall bounded.
            collected.chunks.push(chunk);
            collected.size += chunk.length;
          } else if (answer && !answer.push(chunk)) conn.pause();
        },
        end: (reusable) => {
          // The deadline covers the body too; it ends with the answer.
          clearTimeout(timer);
          if (finished) return;
          finished = true;
          if (collected) {
            const { head: h, chunks, size } = collected;
            resolve({ status: h.status, headers: h.headers, whole: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
          } else answer?.push(null);
          this.#pool.give(conn, reusable && sent);
        },
        error: (message) => fail(new EngineCallError('unreachable', message)),
      });
      if (!isWhole && !finished) {
        detach = streamBody(body, conn, heads, (err) => fail(err instanceof EngineCallError ? err : new EngineCallError('unreachable', err.message)), () => (sent = true));
      }
    });
  }

  /**
   * Sends a request and reads the whole answer, at most `maxBytes`. An answer of declared length
   * within both limits (a hook's usual answer) is collected by `open` itself, without a stream
   * and its listeners per call; others are read from the stream under the limit.
   */
  async call(req: EngineRequest, maxBytes: number): Promise<BufferedAnswer> {
    const answer = await this.open(req, (h) => Number(h.headers['content-length']) <= maxBytes);
    const body = 'whole' in answer ? answer.whole : await readWhole(answer, maxBytes);
    return { status: answer.status, contentType: String(answer.headers['content-type'] ?? ''), text: body.toString('utf8') };
  }

  /** Closes idle connections (server shutdown). */
  close(): void {
    this.#pool.close();
  }
}
