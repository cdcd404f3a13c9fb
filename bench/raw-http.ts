/**
 * A minimal HTTP/1.1 client for load generators that share the machine with the server they
 * measure: kept-alive `net` sockets, one request in flight per socket, each request written
 * in one call, responses read by their Content-Length. node:http's client costs the bench
 * several hundred microseconds of CPU per request (measured in bench/livequery.ts: about
 * 580 us per write with no subscriptions), which the server then competes with on 2 cores.
 * The server sees ordinary HTTP/1.1 requests; a response this client cannot read (chunked,
 * no Content-Length) fails the request instead of being guessed at.
 */
import net from 'node:net';

/** One response: status and body text. */
export interface RawResponse {
  readonly status: number;
  readonly body: string;
}

interface Pending {
  readonly head: string;
  readonly body: string;
  readonly resolve: (r: RawResponse) => void;
  readonly reject: (e: Error) => void;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** One kept-alive connection with at most one request in flight. */
class Connection {
  private buffered: Buffer = Buffer.alloc(0);
  private current: Pending | undefined;
  private dead = false;
  readonly socket: net.Socket;

  constructor(host: string, port: number, private readonly idle: (c: Connection) => void, private readonly failed: (c: Connection, e: Error) => void) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  send(p: Pending): void {
    this.current = p;
    this.socket.write(p.head + p.body);
  }

  private fail(e: Error): void {
    if (this.dead) return;
    this.dead = true;
    const p = this.current;
    this.current = undefined;
    p?.reject(e);
    this.failed(this, e);
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffered.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!m) {
      this.socket.destroy();
      this.fail(new Error(`response without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const total = end + 4 + Number(m[1]);
    if (this.buffered.length < total) return;
    const body = this.buffered.toString('utf8', end + 4, total);
    this.buffered = this.buffered.subarray(total);
    const p = this.current;
    this.current = undefined;
    p?.resolve({ status, body });
    this.idle(this);
  }
}

/** Up to `maxSockets` kept-alive connections to one server; requests queue when all are busy. */
export class RawHttpClient {
  private readonly free: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queue: Pending[] = [];
  private open = 0;
  private readonly host: string;
  private readonly port: number;

  constructor(base: string, private readonly headers: Readonly<Record<string, string>>, private readonly maxSockets = 64) {
    const u = new URL(base);
    this.host = u.hostname;
    this.port = Number(u.port || 80);
  }

  /** POSTs a JSON body; resolves with the response whatever its status. */
  post(path: string, body: string): Promise<RawResponse> {
    let head = `POST ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n`;
    for (const [k, v] of Object.entries(this.headers)) head += `${k}: ${v}\r\n`;
    head += `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      const p: Pending = { head, body, resolve, reject };
      const c = this.free.pop() ?? (this.open < this.maxSockets ? this.connect() : undefined);
      if (c) c.send(p);
      else this.queue.push(p);
    });
  }

  private connect(): Connection {
    this.open++;
    const c = new Connection(this.host, this.port, (x) => this.onIdle(x), (x) => this.onFailed(x));
    this.all.add(c);
    return c;
  }

  private onIdle(c: Connection): void {
    const next = this.queue.shift();
    if (next) c.send(next);
    else this.free.push(c);
  }

  private onFailed(c: Connection): void {
    const at = this.free.indexOf(c);
    if (at >= 0) this.free.splice(at, 1);
    this.all.delete(c);
    this.open--;
    c.socket.destroy();
    // Requests waiting for a connection get a new one.
    const next = this.queue.shift();
    if (next) this.connect().send(next);
  }

  /** Closes every connection. */
  close(): void {
    for (const c of this.all) c.socket.destroy();
    this.all.clear();
    this.free.length = 0;
  }
}
