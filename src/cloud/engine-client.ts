/**
 * The HTTP client Larder speaks to the LeanEngine app with: keep-alive connections per engine
 * (engine-connection.ts; cloud functions and hooks are many small requests), a deadline per
 * call, and answers either streamed (cloud functions, passed back as they are) or read whole up
 * to a limit (hooks).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { AnswerHead, AnswerSink } from './answer-parser.ts';
import { EnginePool, type EngineConnection } from './engine-connection.ts';
import { EngineCallError } from './engine-call-error.ts';
import { readWhole } from './answer-body.ts';
import { requestHead, streamBody } from './engine-request.ts';

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

/** What `exchange` calls back with: the error, or the answer. */
export type AnswerCallback = (err: Error | undefined, answer?: StreamedAnswer | WholeAnswer) => void;

/** The deadline of an exchange ran out (one shared function: no closure per call). */
function deadline(x: Exchange): void {
  x.timedOut = true;
  x.fail(new EngineCallError('timeout', `no answer within ${x.timeoutMs} ms`));
}

/**
 * One request's exchange with the engine: the answer parser's sink (its methods on the
 * prototype, not closures made per call), the deadline, and the answer being read whole or
 * streamed.
 */
class Exchange implements AnswerSink {
  answer: Readable | undefined;
  /** The answer being read whole (`whole`): its head, pieces and size so far. */
  collected: AnswerHead | undefined;
  chunks: Buffer[] | undefined;
  size = 0;
  finished = false;
  timedOut = false;
  /** A streamed body that is not sent in full leaves the connection unusable for the next call. */
  sent: boolean;
  detach: (() => void) | undefined;
  readonly timer: NodeJS.Timeout;

  constructor(
    readonly pool: EnginePool,
    readonly conn: EngineConnection,
    readonly whole: WantsWhole | undefined,
    readonly timeoutMs: number,
    isWhole: boolean,
    readonly done: AnswerCallback,
  ) {
    this.sent = isWhole;
    this.timer = setTimeout(deadline, timeoutMs, this);
  }

  fail(err: EngineCallError): void {
    clearTimeout(this.timer);
    this.detach?.();
    if (this.finished) return;
    this.finished = true;
    this.conn.destroy();
    if (this.answer) this.answer.destroy(err);
    else this.done(this.collected ? new EngineCallError(err.kind, err.message, true) : err);
  }

  head(h: AnswerHead): void {
    if (this.whole && declaredSmall(h) !== undefined && this.whole(h)) {
      this.collected = h;
      this.chunks = [];
      return;
    }
    const conn = this.conn;
    this.answer = new Readable({
      read: () => conn.resume(),
      destroy: (err, cb) => {
        // The reader gave up before the end: the rest of the answer is never read.
        if (!this.finished) {
          this.finished = true;
          clearTimeout(this.timer);
          this.detach?.();
          conn.destroy();
        }
        cb(err);
      },
    });
    this.done(undefined, { status: h.status, headers: h.headers, body: this.answer, done: () => clearTimeout(this.timer), timedOut: () => this.timedOut });
  }

  data(chunk: Buffer): void {
    if (this.chunks) {
      // The parser hands on no more than the declared length, which declaredSmall bounded.
      this.chunks.push(chunk);
      this.size += chunk.length;
    } else if (this.answer && !this.answer.push(chunk)) this.conn.pause();
  }

  end(reusable: boolean): void {
    // The deadline covers the body too; it ends with the answer.
    clearTimeout(this.timer);
    if (this.finished) return;
    this.finished = true;
    const h = this.collected;
    const chunks = this.chunks;
    if (h && chunks) {
      // The connection goes back first: the caller may send its next request from the callback.
      this.pool.give(this.conn, reusable && this.sent);
      this.done(undefined, { status: h.status, headers: h.headers, whole: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.size) });
      return;
    }
    this.answer?.push(null);
    this.pool.give(this.conn, reusable && this.sent);
  }

  error(message: string): void {
    this.fail(new EngineCallError('unreachable', message));
  }
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
   * says so for a small answer of declared length, once all of it is in (a WholeAnswer).
   */
  open(req: EngineRequest): Promise<StreamedAnswer>;
  open(req: EngineRequest, whole: WantsWhole): Promise<StreamedAnswer | WholeAnswer>;
  open(req: EngineRequest, whole?: WantsWhole): Promise<StreamedAnswer | WholeAnswer> {
    return new Promise((resolve, reject) => this.exchange(req, whole, (err, answer) => (err ? reject(err) : resolve(answer as StreamedAnswer | WholeAnswer))));
  }

  /**
   * `open` with a callback instead of a promise, for the cloud function fast path
   * (function-fast-path.ts): called once, with the error or the answer; synchronously when the
   * request cannot be written (an invalid header) or the connection was already lost. No promise,
   * and one object per call for the exchange's state instead of a closure per callback, because
   * this runs once per forwarded call (docs/benchmarks.md, "Cloud code").
   */
  exchange(req: EngineRequest, whole: WantsWhole | undefined, done: AnswerCallback): void {
    const body = req.body;
    const isWhole = body === undefined || Buffer.isBuffer(body);
    let framing: string;
    if (isWhole) framing = body ? `content-length: ${body.length}\r\n` : req.method === 'POST' ? 'content-length: 0\r\n' : '';
    else {
      const declared = req.headers['content-length'];
      framing = declared !== undefined && /^\d+$/.test(declared) ? `content-length: ${declared}\r\n` : 'transfer-encoding: chunked\r\n';
    }
    const chunked = !isWhole && framing.startsWith('transfer-encoding');
    let head: string;
    let heads: { chunked: Buffer; empty: Buffer } | undefined;
    try {
      const path = this.#basePath + req.path;
      head = requestHead(req.method, path, this.#base.host, req.headers, framing);
      if (chunked) heads = { chunked: Buffer.from(head, 'latin1'), empty: Buffer.from(requestHead(req.method, path, this.#base.host, req.headers, 'content-length: 0\r\n'), 'latin1') };
    } catch (err) {
      return done(err instanceof EngineCallError ? err : new EngineCallError('unreachable', String(err)));
    }
    const x = new Exchange(this.#pool, this.#pool.take(), whole, req.timeoutMs, isWhole, done);
    // Head and whole body in one latin1 string (bytes for bytes): one write, and no Buffers to
    // make and join for it.
    x.conn.send(chunked ? undefined : isWhole && body ? head + body.toString('latin1') : head, x);
    if (!isWhole && !x.finished) {
      x.detach = streamBody(body, x.conn, heads, (err) => x.fail(err instanceof EngineCallError ? err : new EngineCallError('unreachable', err.message)), () => (x.sent = true));
    }
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
