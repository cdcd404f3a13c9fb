/**
 * Keep-alive HTTP/1.1 connections to one engine, one request at a time on each. Node's HTTP
 * client (ClientRequest, Agent, IncomingMessage) cost Larder about as much CPU per forwarded
 * cloud function call as the rest of the forwarding together (docs/benchmarks.md, "Cloud code");
 * these connections write a request in one piece and read the answer with answer-parser.ts.
 *
 * Idle connections are closed after IDLE_MS, before the engine's own keep-alive timeout (Node:
 * 5 s) would close them under a request being written; a connection the engine closed while
 * idle is dropped as soon as that is seen.
 */
import net from 'node:net';
import tls from 'node:tls';
import { AnswerParser, type AnswerSink } from './answer-parser.ts';

/** Longest a connection stays idle before it is closed. */
const IDLE_MS = 3500;
/** Idle connections kept at most (more are closed once their answer is in). */
const MAX_IDLE = 64;

/** One connection: a socket, its parser, and the answer it is waiting for. */
export class EngineConnection {
  readonly #socket: net.Socket;
  readonly #parser = new AnswerParser();
  #gone: string | undefined;
  idleSince = 0;

  constructor(socket: net.Socket, private readonly onGone: (c: EngineConnection) => void) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      // Bytes on an idle connection answer nothing that was asked: the connection is not usable.
      if (!this.#parser.busy) return this.destroy();
      this.#parser.feed(chunk);
    });
    socket.on('end', () => this.#lost('the engine closed the connection'));
    socket.on('error', (err: NodeJS.ErrnoException) => this.#lost(err.code ?? err.message));
    socket.on('close', () => this.#lost('the connection to the engine closed'));
  }

  /**
   * Sends one request (head and, when whole, body, as a latin1 string: one byte a character;
   * nothing yet when the caller writes it on `socket`) and has its answer parsed into `sink`.
   */
  send(head: string | undefined, sink: AnswerSink): void {
    if (this.#gone !== undefined) return sink.error(this.#gone);
    this.#parser.expect(sink);
    // The last answer's reader may have paused the connection before that answer's end.
    this.#socket.resume();
    if (head !== undefined) this.#socket.write(head, 'latin1');
  }

  /** The socket, for streaming a body after the head. */
  get socket(): net.Socket {
    return this.#socket;
  }

  /** Stops reading while the answer's reader is full, and resumes. */
  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  /** Closes the connection (a broken or abandoned exchange). */
  destroy(): void {
    this.#parser.abandon();
    this.#socket.destroy();
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }

  #lost(why: string): void {
    this.#gone ??= why;
    // An answer that runs to the close ends here; an unfinished one fails with the first reason.
    if (this.#parser.busy) this.#parser.closed(this.#gone);
    this.onGone(this);
  }
}

/** The connections to one engine origin. */
export class EnginePool {
  readonly #idle: EngineConnection[] = [];
  readonly #host: string;
  readonly #port: number;
  readonly #secure: boolean;
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  constructor(url: URL) {
    this.#secure = url.protocol === 'https:';
    this.#host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.#port = Number(url.port || (this.#secure ? 443 : 80));
    this.#sweeper = setInterval(() => this.#sweep(), 500);
    this.#sweeper.unref();
  }

  /** An idle connection, or a new one (connecting: writes wait for it). */
  take(): EngineConnection {
    while (this.#idle.length) {
      const c = this.#idle.pop() as EngineConnection;
      if (c.alive) return c;
    }
    const socket = this.#secure ? tls.connect({ host: this.#host, port: this.#port, servername: net.isIP(this.#host) ? undefined : this.#host, ALPNProtocols: ['http/1.1'] }) : net.connect({ host: this.#host, port: this.#port });
    return new EngineConnection(socket, (c) => this.#forget(c));
  }

  /** Takes a connection back after a complete answer; closes it when it may not be reused. */
  give(c: EngineConnection, reusable: boolean): void {
    if (!reusable || this.#closed || !c.alive || this.#idle.length >= MAX_IDLE) return c.destroy();
    c.idleSince = Date.now();
    this.#idle.push(c);
  }

  /** Closes the idle connections and every later returned one (server shutdown). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#sweeper);
    for (const c of this.#idle.splice(0)) c.destroy();
  }

  #forget(c: EngineConnection): void {
    const i = this.#idle.indexOf(c);
    if (i >= 0) this.#idle.splice(i, 1);
  }

  #sweep(): void {
    const oldest = Date.now() - IDLE_MS;
    // Taken from the end, so the front holds the longest idle.
    while (this.#idle.length && this.#idle[0].idleSince < oldest) this.#idle.shift()?.destroy();
  }
}
