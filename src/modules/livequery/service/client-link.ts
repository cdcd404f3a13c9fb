/** What the service needs of one WebSocket connection (the socket layer implements it). */
export interface ClientLink {
  /** Sends one stored push to a subscription id logged in on this connection. */
  sendPush(subscriptionId: string, seq: string, payload: string): void;
  /** Tells the client to fetch the route again and reconnect (shutdown). */
  goAway(): void;
}

/**
 * Sequence numbers recently sent to one subscription id on one connection: a push can reach a
 * connection twice (its notification, and the replay after a login racing with it).
 */
export class SentSet {
  private readonly seen = new Set<string>();
  private readonly order: string[] = [];

  constructor(private readonly capacity = 2000) {}

  /** True the first time a sequence number is offered. */
  add(seq: string): boolean {
    if (this.seen.has(seq)) return false;
    this.seen.add(seq);
    this.order.push(seq);
    if (this.order.length > this.capacity) this.seen.delete(this.order.shift()!);
    return true;
  }

  /** True when the sequence number was sent here (an ack for anything else is ignored). */
  has(seq: string): boolean {
    return this.seen.has(seq);
  }
}
