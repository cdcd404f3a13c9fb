/**
 * One LiveQuery WebSocket connection. A connection carries any number of subscription ids (the
 * SDK's `installationId`, one per LiveQuery client), each logged in with a `login` command; it
 * receives their pushes as `data` commands and acknowledges them with `ack`. `echo` is the JS
 * SDK's keep-alive; the C# SDK sends the JSON text `{}`. Anything else gets an `error` command.
 */
import type { AppContext, Logger } from '../../../module-api/context.ts';
import { decodeFrame, encodeFrame, errorCommand, FrameError, type FrameFormat } from '../protocol/frame-codec.ts';
import { CMD, type Command } from '../protocol/messages.ts';
import { SentSet, type ClientLink } from '../service/client-link.ts';
import type { LiveQueryService } from '../service/live-service.ts';
import { MAX_SUBSCRIPTION_ID_LENGTH } from '../store/subscription-query.ts';

/** Subscription ids one connection may log in. */
export const MAX_CLIENTS_PER_CONNECTION = 100;
/** The `service` number of LiveQuery in login and data commands. */
export const LIVEQUERY_SERVICE = 1;

/** Error codes of the realtime protocol the SDK knows (leancloud-realtime's error table). */
export const RTM_ERRORS = {
  appNotAvailable: 4100,
  invalidLogin: 4103,
  sessionRequired: 4105,
  internal: 4200,
} as const;

const SUBSCRIPTION_ID = /^[A-Za-z0-9_\-.:]+$/;

/** What a connection needs of the WebSocket. */
export interface FrameSocket {
  send(data: Buffer | string): void;
  close(code: number, reason: string): void;
  readonly readyState: number;
}

const OPEN = 1;

/** One connection's protocol state. */
export class LiveConnection implements ClientLink {
  /** Logged-in subscription ids, with what was sent to each. */
  private readonly sent = new Map<string, SentSet>();
  /** Pushes that arrived while a login's replay was being read, by subscription id. */
  private readonly replaying = new Map<string, [string, string][]>();
  lastSeen = Date.now();

  constructor(
    private readonly ws: FrameSocket,
    private readonly format: FrameFormat,
    private readonly service: LiveQueryService,
    private readonly app: AppContext,
    private readonly logger: Logger,
  ) {}

  private send(command: Command): void {
    if (this.ws.readyState !== OPEN) return;
    this.ws.send(encodeFrame(this.format, command));
  }

  /** Handles one frame from the client. */
  onFrame(data: Buffer, isBinary: boolean): void {
    this.lastSeen = Date.now();
    let command: Command;
    try {
      command = decodeFrame(this.format, data, isBinary);
    } catch (err) {
      const reason = err instanceof FrameError ? err.message : 'undecodable frame';
      this.send(errorCommand(RTM_ERRORS.internal, `Malformed command: ${reason.slice(0, 200)}`));
      return;
    }
    this.handle(command).catch((err: unknown) => {
      this.logger.error({ err }, 'livequery: handling a command failed');
      this.send(errorCommand(RTM_ERRORS.internal, 'Internal server error.', command.i));
    });
  }

  private async handle(c: Command): Promise<void> {
    switch (c.cmd) {
      case undefined:
        // The C# SDK's heartbeat `{}`: answered in kind.
        if (this.format === 'json' && c.i === undefined) this.ws.send('{}');
        return;
      case CMD.echo:
        this.send(c.i === undefined ? { cmd: CMD.echo } : { cmd: CMD.echo, i: c.i });
        return;
      case CMD.login:
        return this.login(c);
      case CMD.logout:
        return this.logout(c);
      case CMD.ack:
        return this.ack(c);
      default:
        this.send(errorCommand(RTM_ERRORS.internal, 'This server serves LiveQuery only: login, logout, ack and echo commands.', c.i));
    }
  }

  private async login(c: Command): Promise<void> {
    if (c.appId !== this.app.keys.appId) {
      this.send(errorCommand(RTM_ERRORS.appNotAvailable, 'Unknown appId.', c.i));
      return;
    }
    const id = c.installationId;
    if (c.service !== LIVEQUERY_SERVICE || typeof id !== 'string' || id.length === 0 || id.length > MAX_SUBSCRIPTION_ID_LENGTH || !SUBSCRIPTION_ID.test(id)) {
      this.send(errorCommand(RTM_ERRORS.invalidLogin, 'A LiveQuery login needs service 1 and the subscription id as installationId.', c.i));
      return;
    }
    if (!this.sent.has(id)) {
      if (this.sent.size >= MAX_CLIENTS_PER_CONNECTION) {
        this.send(errorCommand(RTM_ERRORS.invalidLogin, `At most ${MAX_CLIENTS_PER_CONNECTION} subscription ids per connection.`, c.i));
        return;
      }
      this.sent.set(id, new SentSet());
    }
    // Answer first: the SDK routes pushes to a LiveQuery client only once its login resolved.
    this.send({ cmd: CMD.loggedin, i: c.i, installationId: id, service: LIVEQUERY_SERVICE });
    // What it missed goes out before anything pushed meanwhile, so a client sees events in order.
    const live: [string, string][] = [];
    this.replaying.set(id, live);
    try {
      const missed = await this.service.attach(this, id);
      for (const e of missed) this.deliver(id, e.seq, e.payload);
    } finally {
      this.replaying.delete(id);
      for (const [seq, payload] of live) this.deliver(id, seq, payload);
    }
  }

  private async logout(c: Command): Promise<void> {
    const id = c.installationId;
    if (typeof id === 'string' && this.sent.delete(id)) await this.service.detach(this, id);
    this.send({ cmd: CMD.loggedout, i: c.i, ...(typeof id === 'string' ? { installationId: id, service: LIVEQUERY_SERVICE } : {}) });
  }

  private ack(c: Command): void {
    const id = c.installationId;
    const sent = typeof id === 'string' ? this.sent.get(id) : undefined;
    const ids = c.ackMessage?.ids;
    if (!sent || !Array.isArray(ids)) return;
    // Only pushes sent to this subscription id on this connection can be acknowledged here.
    const seqs = ids.filter((x) => typeof x === 'string' && /^\d{1,19}$/.test(x) && sent.has(x));
    if (seqs.length > 0) this.service.acknowledge(id!, seqs);
  }

  /** Sends one push (once per connection, however often it is offered; after a login's replay). */
  sendPush(subscriptionId: string, seq: string, payload: string): void {
    const queue = this.replaying.get(subscriptionId);
    if (queue) queue.push([seq, payload]);
    else this.deliver(subscriptionId, seq, payload);
  }

  private deliver(subscriptionId: string, seq: string, payload: string): void {
    const sent = this.sent.get(subscriptionId);
    if (!sent || !sent.add(seq)) return;
    this.send({ cmd: CMD.data, installationId: subscriptionId, service: LIVEQUERY_SERVICE, dataMessage: { ids: [seq], msg: [{ data: payload }] } });
  }

  /** Asks the client to fetch the route again and reconnect. */
  goAway(): void {
    this.send({ cmd: CMD.goaway });
  }

  /** The connection closed: every subscription id logged in here starts its reconnect window. */
  async closed(): Promise<void> {
    const ids = [...this.sent.keys()];
    this.sent.clear();
    for (const id of ids) await this.service.detach(this, id);
  }
}
