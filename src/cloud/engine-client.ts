/**
 * The HTTP client Larder speaks to the LeanEngine app with: one keep-alive agent per engine
 * (cloud functions and hooks are many small requests), a deadline per call, and answers either
 * streamed (cloud functions, passed back as they are) or read whole up to a limit (hooks).
 */
import http from 'node:http';
import https from 'node:https';
import { Transform, type Readable } from 'node:stream';

/** Why a call to the engine failed before it gave a usable answer. */
export type EngineFailure = 'unreachable' | 'timeout' | 'too-large';

/** A failed call; `kind` decides the client's error (engine-errors.ts). */
export class EngineCallError extends Error {
  constructor(readonly kind: EngineFailure, message: string) {
    super(message);
  }
}

/** One request to the engine. */
export interface EngineRequest {
  readonly method: 'GET' | 'POST';
  /** Path with query, e.g. /1.1/functions/hello. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A buffer, a stream (piped as it arrives), or nothing. */
  readonly body?: Buffer | Readable;
  readonly timeoutMs: number;
}

/** An answer whose body is still arriving. */
export interface StreamedAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: http.IncomingMessage;
  /** Stops the deadline (the caller took over the body). */
  done(): void;
  /** True when the deadline cut the call. */
  timedOut(): boolean;
}

/** An answer read whole. */
export interface BufferedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** A client of one engine base URL. */
export class EngineClient {
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;

  constructor(baseUrl: string) {
    this.#base = new URL(baseUrl);
    const secure = this.#base.protocol === 'https:';
    // Sockets are kept between calls; the engine's own keep-alive timeout (Node: 5 s) closes
    // idle ones, so ours is shorter to avoid writing into a socket the engine just closed.
    const opts = { keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 64, timeout: 4000 };
    this.#agent = secure ? new https.Agent(opts) : new http.Agent(opts);
    this.#request = secure ? https.request : http.request;
  }

  /** The base URL (for logs; never holds secrets). */
  get url(): string {
    return this.#base.origin;
  }

  /** Sends a request; resolves once the answer's status and headers are in. */
  open(req: EngineRequest): Promise<StreamedAnswer> {
    return new Promise((resolve, reject) => {
      const basePath = this.#base.pathname.replace(/\/+$/, '');
      const out = this.#request({
        protocol: this.#base.protocol,
        hostname: this.#base.hostname,
        port: this.#base.port,
        method: req.method,
        path: basePath + req.path,
        headers: req.headers,
        agent: this.#agent,
      });
      let settled = false;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        const err = new EngineCallError('timeout', `no answer within ${req.timeoutMs} ms`);
        out.destroy(err);
        if (!settled) ((settled = true), reject(err));
      }, req.timeoutMs);
      out.on('error', (err) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(err instanceof EngineCallError ? err : new EngineCallError('unreachable', (err as NodeJS.ErrnoException).code ?? err.message));
      });
      out.on('response', (res) => {
        if (settled) return void res.resume();
        settled = true;
        resolve({
          status: res.statusCode ?? 502,
          headers: res.headers,
          body: res,
          done: () => clearTimeout(timer),
          timedOut: () => timedOut,
        });
        // The deadline covers the body too: a stalled answer is cut.
        res.on('end', () => clearTimeout(timer));
        res.on('close', () => clearTimeout(timer));
      });
      const body = req.body;
      if (body === undefined) out.end();
      else if (Buffer.isBuffer(body)) out.end(body);
      else {
        body.on('error', (err) => out.destroy(err));
        body.pipe(out);
      }
    });
  }

  /** Sends a request and reads the whole answer, at most `maxBytes`. */
  async call(req: EngineRequest, maxBytes: number): Promise<BufferedAnswer> {
    const answer = await this.open(req);
    const body = await readWhole(answer, maxBytes);
    return { status: answer.status, contentType: String(answer.headers['content-type'] ?? ''), text: body.toString('utf8') };
  }

  /** Closes idle sockets (server shutdown). */
  close(): void {
    this.#agent.destroy();
  }
}

/**
 * Reads the rest of an answer into one buffer, at most `maxBytes`; the deadline of the call
 * still applies while it arrives.
 */
export async function readWhole(answer: StreamedAnswer, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of answer.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        answer.body.destroy();
        throw new EngineCallError('too-large', `answer larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof EngineCallError) throw err;
    // The deadline destroyed the body, or the engine went away while answering.
    throw new EngineCallError(answer.timedOut() ? 'timeout' : 'unreachable', (err as Error).message);
  }
  answer.done();
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/**
 * A pass-through that fails once more than `limit` bytes went through: request bodies and
 * function answers are streamed, never held whole, and still bounded.
 */
export function byteLimit(limit: number, onExceeded: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) return done(onExceeded());
      done(null, chunk);
    },
  });
}
