/**
 * Reads HTTP/1.1 answers off a connection to the engine (engine-connection.ts): the status line
 * and headers, then the body as its framing says (Content-Length, chunked, or until the
 * connection closes), handed on in the pieces that arrive. Interim 1xx answers are skipped. One
 * answer per request; bytes after an answer's end mean the connection cannot be reused.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Status and headers of an answer. */
export interface AnswerHead {
  readonly status: number;
  /**
   * The headers Larder reads (KEPT: framing, content type, cache control, cookies), lower-cased;
   * the engine's others (Date, Keep-Alive, X-Powered-By, its CORS headers...) are never passed
   * back, so they are not stored.
   */
  readonly headers: IncomingHttpHeaders;
  /** False when the engine will close the connection (or must not be sent another request on it). */
  readonly keepAlive: boolean;
}

/** Where the parts of an answer go. */
export interface AnswerSink {
  head(head: AnswerHead): void;
  data(chunk: Buffer): void;
  end(reusable: boolean): void;
  error(message: string): void;
}

/** Longest status line and header block accepted (Node's own limit is 16 KiB). */
const MAX_HEAD = 64 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailers' | 'close' | 'done';

/**
 * The answer headers anyone reads: the parser (framing, keep-alive), the engine client and the
 * routes (content type and length, cache control and cookies passed back: function-forwarding.ts).
 * The rest are skipped unread: making each one a property of a fresh object and slicing its
 * value was most of this parser's time per answer, which runs once per engine call
 * (docs/benchmarks.md, "Cloud code").
 */
const KEPT = ['Content-Type', 'Content-Length', 'Connection', 'Set-Cookie', 'Cache-Control', 'Transfer-Encoding'];
const KEPT_LOWER: ReadonlySet<string> = new Set(KEPT.map((n) => n.toLowerCase()));
/** Name lengths of KEPT: a name of any other length is skipped without being read. */
const KEPT_LENGTH: readonly boolean[] = (() => {
  const byLength: boolean[] = [];
  for (const n of KEPT) byLength[n.length] = true;
  return byLength;
})();

/**
 * Header names engine answers carry (Express and LeanEngine's), by length, each lower-cased, as
 * Node's server spells it, and whether it is KEPT. A name among them is matched in place, in
 * either spelling: slicing and lower-casing each name and then finding it in V8's string table,
 * to use it as a key, was a tenth of Larder's own work per forwarded call, and lower-casing the
 * whole head to match names against was a third of what was left of this parser's time
 * (docs/benchmarks.md, "Cloud code").
 */
const COMMON_NAMES: readonly (readonly (readonly [lower: string, spelled: string, kept: boolean])[] | undefined)[] = (() => {
  const byLength: [string, string, boolean][][] = [];
  const names = [...KEPT, 'Keep-Alive', 'Date', 'ETag', 'X-Powered-By', 'Access-Control-Allow-Origin', 'Vary'];
  for (const n of names) (byLength[n.length] ??= []).push([n.toLowerCase(), n, KEPT_LOWER.has(n.toLowerCase())]);
  return byLength;
})();

/** What String.prototype.trim removes, among the characters of a latin1 head. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160;
}

/**
 * The lower-cased, trimmed name of the header field at `pos`..`colon` of `text` when it is KEPT,
 * else undefined (latin1: letters lower-case one for one, so matching a known spelling exactly is
 * matching it case-insensitively).
 */
function keptName(text: string, pos: number, colon: number): string | undefined {
  if (isSpace(text.charCodeAt(pos)) || isSpace(text.charCodeAt(colon - 1))) {
    const name = text.slice(pos, colon).trim().toLowerCase();
    return KEPT_LOWER.has(name) ? name : undefined;
  }
  const common = COMMON_NAMES[colon - pos];
  if (common) for (const [lower, spelled, kept] of common) if (text.startsWith(spelled, pos) || text.startsWith(lower, pos)) return kept ? lower : undefined;
  if (!KEPT_LENGTH[colon - pos]) return undefined;
  const name = text.slice(pos, colon).toLowerCase();
  return KEPT_LOWER.has(name) ? name : undefined;
}

/** Character codes of the status line's fixed parts. */
const C_SPACE = 32;
const C_0 = 48;
const C_9 = 57;

/**
 * The HTTP minor version and status of a status line (`text` up to `eol`), as
 * /^HTTP\/1\.([01]) (\d{3})(?: |$)/ reads it, without a regex match per answer; undefined when
 * it is not one.
 */
function statusLine(text: string, eol: number): { minor: number; status: number } | undefined {
  if (eol < 12 || !text.startsWith('HTTP/1.', 0)) return undefined;
  const minor = text.charCodeAt(7) - C_0;
  if ((minor !== 0 && minor !== 1) || text.charCodeAt(8) !== C_SPACE) return undefined;
  let status = 0;
  for (let i = 9; i < 12; i++) {
    const c = text.charCodeAt(i);
    if (c < C_0 || c > C_9) return undefined;
    status = status * 10 + c - C_0;
  }
  if (eol > 12 && text.charCodeAt(12) !== C_SPACE) return undefined;
  return { minor, status };
}

/**
 * The status line and the KEPT header fields of `text` (the head without its final CRLF CRLF). Walks the
 * lines in place rather than splitting them into an array: this runs once per engine call.
 */
function parseHead(text: string): { status: number; headers: IncomingHttpHeaders; keepAlive: boolean } | undefined {
  const end = text.length;
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = end;
  const line = statusLine(text, eol);
  if (!line) return undefined;
  const headers: IncomingHttpHeaders = {};
  for (let pos = eol + 2; pos <= end; pos = eol + 2) {
    eol = text.indexOf('\r\n', pos);
    if (eol < 0) eol = end;
    const colon = text.indexOf(':', pos);
    if (colon <= pos || colon > eol) return undefined;
    const name = keptName(text, pos, colon);
    if (name === undefined) continue;
    // Trimmed by bounds, one slice per value (trim on a slice would make two strings).
    let from = colon + 1;
    let to = eol;
    while (from < to && isSpace(text.charCodeAt(from))) from++;
    while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
    const value = text.slice(from, to);
    if (name === 'set-cookie') (headers['set-cookie'] ??= []).push(value);
    else if (headers[name] === undefined) headers[name] = value;
    else if (name === 'content-length') {
      if (headers[name] !== value) return undefined;
    } else if (name !== 'content-type') headers[name] = `${String(headers[name])}, ${value}`;
  }
  const connection = String(headers.connection ?? '').toLowerCase();
  const keepAlive = line.minor === 1 ? !connection.includes('close') : connection.includes('keep-alive');
  return { status: line.status, headers, keepAlive };
}

/** Parses the answers to the requests sent on one connection, one at a time. */
export class AnswerParser {
  #state: State = 'done';
  #sink: AnswerSink | undefined;
  #pending: Buffer | undefined;
  #left = 0;
  #keepAlive = false;

  /** Expects the answer to the request just sent. */
  expect(sink: AnswerSink): void {
    this.#sink = sink;
    this.#state = 'head';
    this.#pending = undefined;
  }

  /** True while an answer is expected or arriving. */
  get busy(): boolean {
    return this.#state !== 'done';
  }

  /** Bytes from the connection. */
  feed(chunk: Buffer): void {
    let buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = undefined;
    while (buf.length > 0) {
      const sink = this.#sink;
      if (!sink || this.#state === 'done') return this.#fail('the engine sent bytes nobody asked for');
      switch (this.#state) {
        case 'head': {
          const end = buf.indexOf(CRLF2);
          if (end < 0) {
            if (buf.length > MAX_HEAD) return this.#fail('the engine answered with an oversized header');
            this.#pending = buf;
            return;
          }
          const head = parseHead(buf.toString('latin1', 0, end));
          buf = buf.subarray(end + 4);
          if (!head) return this.#fail('the engine answered with a malformed header');
          if (head.status < 200) continue; // 100 Continue, 103 Early Hints: the answer follows.
          this.#keepAlive = head.keepAlive;
          sink.head(head);
          if (this.#sink !== sink) return; // The head was enough for the caller, who gave up.
          const te = head.headers['transfer-encoding'];
          const cl = head.headers['content-length'];
          if (head.status === 204 || head.status === 304) this.#finish(buf.length === 0);
          else if (te !== undefined) {
            // Chunked last is the only framing with an end; anything else runs to the close.
            this.#state = /(?:^|,)\s*chunked\s*$/i.test(te) ? 'chunk-size' : 'close';
            if (cl !== undefined) this.#keepAlive = false;
          } else if (cl !== undefined) {
            if (!/^\d{1,15}$/.test(cl)) return this.#fail('the engine answered with a malformed Content-Length');
            this.#left = Number(cl);
            this.#state = 'length';
            if (this.#left === 0) this.#finish(buf.length === 0);
          } else this.#state = 'close';
          break;
        }
        case 'length': {
          const take = Math.min(this.#left, buf.length);
          const all = take === buf.length;
          sink.data(all ? buf : buf.subarray(0, take));
          this.#left -= take;
          // The common answer ends with its piece: no empty view made for the rest.
          buf = all ? EMPTY : buf.subarray(take);
          if (this.#left === 0) this.#finish(buf.length === 0);
          break;
        }
        case 'chunk-size': {
          const eol = buf.indexOf('\r\n');
          if (eol < 0) {
            if (buf.length > 1024) return this.#fail('the engine answered with a malformed chunk');
            this.#pending = buf;
            return;
          }
          const size = /^([0-9A-Fa-f]{1,12})(?:;.*)?$/.exec(buf.toString('latin1', 0, eol));
          buf = buf.subarray(eol + 2);
          if (!size) return this.#fail('the engine answered with a malformed chunk');
          this.#left = parseInt(size[1], 16);
          this.#state = this.#left === 0 ? 'trailers' : 'chunk-data';
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.#left, buf.length);
          sink.data(take === buf.length ? buf : buf.subarray(0, take));
          this.#left -= take;
          buf = buf.subarray(take);
          if (this.#left === 0) this.#state = 'chunk-crlf';
          break;
        }
        case 'chunk-crlf': {
          if (buf.length < 2) {
            this.#pending = buf;
            return;
          }
          if (buf[0] !== 13 || buf[1] !== 10) return this.#fail('the engine answered with a malformed chunk');
          buf = buf.subarray(2);
          this.#state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Trailer fields are dropped; an empty line ends the answer.
          const eol = buf.indexOf('\r\n');
          if (eol < 0) {
            if (buf.length > MAX_HEAD) return this.#fail('the engine answered with oversized trailers');
            this.#pending = buf;
            return;
          }
          const empty = eol === 0;
          buf = buf.subarray(eol + 2);
          if (empty) this.#finish(buf.length === 0);
          break;
        }
        case 'close':
          sink.data(buf);
          return;
      }
    }
  }

  /** The connection ended: the end of an answer that runs to the close, else a broken one. */
  closed(why: string): void {
    if (this.#state === 'close') {
      this.#keepAlive = false;
      return this.#finish(false);
    }
    if (this.#state !== 'done') this.#fail(why);
  }

  /** Stops expecting an answer (the caller gave up; the connection is closed). */
  abandon(): void {
    this.#sink = undefined;
    this.#state = 'done';
    this.#pending = undefined;
  }

  #finish(clean: boolean): void {
    const sink = this.#sink;
    this.#sink = undefined;
    this.#state = 'done';
    sink?.end(clean && this.#keepAlive);
  }

  #fail(message: string): void {
    const sink = this.#sink;
    this.#sink = undefined;
    this.#state = 'done';
    this.#pending = undefined;
    sink?.error(message);
  }
}
