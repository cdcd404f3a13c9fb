/**
 * LiveQuery for one app in this process: the registry of every subscription (kept in step
 * with the table through the channel), the clients whose WebSockets this process holds, the
 * publishing of committed writes, the outbox of unacknowledged pushes, and the process lease.
 *
 * A write is matched in the process that committed it (it alone has the object before and
 * after); its pushes are stored, delivered to this process's clients at once and to the other
 * processes' clients through one notification. A client away for less than the reconnect window
 * gets what it missed when it logs in again, on whichever process it reaches.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext, Logger } from '../../../module-api/context.ts';
import { matchChange, type ObjectChange, type Push } from '../events/match-change.ts';
import { awaitStoresInFlight, deleteAcknowledged, eventsBySeq, pendingEvents, storeEvents, type OutboxEvent } from '../store/event-outbox.ts';
import { ensureLiveQueryTables } from '../store/livequery-tables.ts';
import { dropProcess, reclaimClients, renewLease, sweepExpired } from '../store/process-lease.ts';
import { SubscriptionRegistry } from '../store/subscription-registry.ts';
import { clientConnected, clientDisconnected, deleteSubscription, loadAllSubscriptions, loadSubscriptions, saveSubscription, type StoredSubscription } from '../store/subscription-store.ts';
import { SequenceReserve } from '../store/sequence-reserve.ts';
import type { ClientLink } from './client-link.ts';
import { StoreQueue } from './store-queue.ts';
import { announcePushes, notifyChannel } from './channel-send.ts';
import { LIVEQUERY_CHANNEL, packItems, parseChannelMessage, senderPrefix, type ChannelMessage } from './livequery-channel.ts';

/** Timing of the service (config: LARDER_LIVEQUERY_WINDOW_MS, LARDER_LIVEQUERY_LEASE_MS). */
export interface LiveQueryTiming {
  /** How long an away client keeps its subscriptions and undelivered pushes. */
  readonly windowMs: number;
  /** A process that has not renewed its lease for this long counts as crashed. */
  readonly leaseMs: number;
}

/** Acknowledgements are deleted in batches this often. */
const ACK_FLUSH_MS = 200;

/** The LiveQuery state of one app in this process. */
export class LiveQueryService {
  readonly processId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  readonly registry = new SubscriptionRegistry();
  private readonly clients = new Map<string, Set<ClientLink>>();
  private outgoing: { matched: Promise<Push[]>; done: () => void }[] = [];
  private flushing: Promise<void> | undefined;
  private broadcasting: Promise<void> = Promise.resolve();
  private readonly seqs: SequenceReserve;
  private readonly stores: StoreQueue;
  private acks: { subscriptionId: string; seq: string }[] = [];
  private ackTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private unlisten?: () => Promise<void>;
  private ownPrefix: string | undefined;

  constructor(
    private readonly app: AppContext,
    private readonly logger: Logger,
    readonly timing: LiveQueryTiming,
  ) {
    this.seqs = new SequenceReserve(app, (err: unknown) => logger.warn({ err }, 'livequery: reserving outbox sequence numbers failed'));
    this.stores = new StoreQueue((events) => this.store(events), (err: unknown) => logger.error({ err }, 'livequery: storing pushes failed'));
  }

  /** Creates the tables, loads the subscriptions, listens to the other processes, takes the lease. */
  async start(): Promise<void> {
    await ensureLiveQueryTables(this.app.db);
    if (this.app.db.listen) {
      this.unlisten = await this.app.db.listen(LIVEQUERY_CHANNEL, (p) => this.onChannel(p), () => void this.onReset());
    }
    this.registry.replaceAll(await loadAllSubscriptions(this.app.db));
    await renewLease(this.app, this.processId, this.timing.leaseMs);
    // Stores that did not see our lease (so will not announce their pushes) finish first: our
    // clients' replay after login finds their rows.
    await awaitStoresInFlight(this.app);
    this.scheduleLease();
  }

  /** Stops the timers, flushes acknowledgements and gives up the lease (clients' windows start). */
  async stop(): Promise<void> {
    this.stopped = true;
    // On PostgreSQL a connection of its own: released with the service, not only with the database.
    await this.unlisten?.().catch(() => {});
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    if (this.ackTimer) clearTimeout(this.ackTimer);
    await this.flushing;
    await Promise.all([this.stores.settled(), this.seqs.settled()]);
    await this.broadcasting;
    await this.flushAcks().catch(() => {});
    await dropProcess(this.app, this.processId).catch((err: unknown) => this.logger.warn({ err }, 'livequery: giving up the lease failed'));
  }

  /** Tells every connected client to reconnect elsewhere (shutdown). */
  goAwayAll(): void {
    for (const set of this.clients.values()) for (const link of set) link.goAway();
  }

  // --- writes -------------------------------------------------------------------------------

  /**
   * Publishes one committed write. Matching runs at once (writes are matched concurrently);
   * numbering and sending to this process's clients go through one queue in commit order, and
   * the outbox rows follow in batches (whatever queued up while the previous batch was being
   * written goes in one statement and one notification). Resolves once this write's pushes are
   * sent to this process's clients and stored (the notification to the other processes may
   * still be on its way).
   */
  publish(change: ObjectChange): Promise<void> {
    if (this.stopped || !this.registry.watches(change.className)) return Promise.resolve();
    const matched = matchChange(this.app, this.registry, change).catch((err: unknown) => {
      this.logger.error({ err, className: change.className }, 'livequery: matching a write failed');
      return [] as Push[];
    });
    return new Promise<void>((done) => {
      this.outgoing.push({ matched, done });
      this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    });
  }

  private async flush(): Promise<void> {
    while (this.outgoing.length > 0) {
      const round = this.outgoing.splice(0);
      let stored: Promise<void> = Promise.resolve();
      try {
        const pushes = (await Promise.all(round.map((r) => r.matched))).flat();
        if (pushes.length > 0) {
          // Numbered from the reserve and sent to this process's clients at once, in commit
          // order; the outbox rows follow in the store queue (a login's replay and the deletion
          // of acknowledgements wait for them), so no database round trip delays a push here.
          const seqs = await this.seqs.take(pushes.length);
          const events = pushes.map((p, n) => ({ seq: seqs[n], subscriptionId: p.subscriptionId, payload: p.payload }));
          stored = this.stores.add(events);
          this.deliver(events);
        }
      } catch (err) {
        this.logger.error({ err }, 'livequery: numbering or sending pushes failed');
      }
      void stored.then(() => {
        for (const r of round) r.done();
      });
    }
  }

  /**
   * Writes one batch of pushes to the outbox. The other processes' copy goes out after it, in
   * order, without holding up the next batch; a process alone sends none (it would only receive
   * its own pushes back, their text twice through PostgreSQL).
   */
  private async store(events: readonly OutboxEvent[]): Promise<void> {
    const others = await storeEvents(this.app, this.processId, events);
    if (others) this.broadcasting = this.broadcasting.then(() => announcePushes(this.app, this.processId, events)).catch((err: unknown) => this.logger.error({ err }, 'livequery: sending pushes to the other processes failed'));
  }

  private deliver(events: readonly OutboxEvent[]): void {
    for (const e of events) {
      const links = this.clients.get(e.subscriptionId);
      if (links) for (const l of links) l.sendPush(e.subscriptionId, e.seq, e.payload);
    }
  }

  // --- subscriptions ------------------------------------------------------------------------

  /**
   * Stores a subscription (one statement, which also tells the other processes) and adds it to
   * this process's registry as stored. False, and nothing kept, when its client would hold more
   * than `maxPerClient` subscriptions.
   */
  async subscribe(sub: StoredSubscription, maxPerClient: number): Promise<boolean> {
    const payload = JSON.stringify({ s: this.app.db.schema, from: this.processId, k: 'subs', q: [sub.queryId] } satisfies ChannelMessage);
    if ((await saveSubscription(this.app, sub, { channel: LIVEQUERY_CHANNEL, payload })) > maxPerClient) {
      await deleteSubscription(this.app, sub.subscriptionId, sub.queryId);
      await this.subscriptionsChanged([sub.queryId]);
      return false;
    }
    this.registry.upsert(sub);
    return true;
  }

  /** A subscription was stored or removed here: reload it, and tell the other processes. */
  async subscriptionsChanged(queryIds: readonly string[]): Promise<void> {
    if (queryIds.length === 0) return;
    await this.reload(queryIds);
    const base = { s: this.app.db.schema, from: this.processId };
    const fixed = Buffer.byteLength(JSON.stringify({ ...base, k: 'subs', q: [] }));
    for (const q of packItems([...queryIds], fixed, (x) => x.length + 3).packs) await notifyChannel(this.app, { ...base, k: 'subs', q });
  }

  private async reload(queryIds: readonly string[]): Promise<void> {
    const found = await loadSubscriptions(this.app.db, queryIds);
    const present = new Set(found.map((s) => s.queryId));
    for (const id of queryIds) if (!present.has(id)) this.registry.remove(id);
    for (const s of found) this.registry.upsert(s);
  }

  // --- clients ------------------------------------------------------------------------------

  /**
   * A client logged in on a connection of this process: from now on its pushes reach the link;
   * returns what it has not acknowledged yet (oldest first), for the link to send before them.
   */
  async attach(link: ClientLink, subscriptionId: string): Promise<OutboxEvent[]> {
    let set = this.clients.get(subscriptionId);
    if (!set) this.clients.set(subscriptionId, (set = new Set()));
    set.add(link);
    await clientConnected(this.app, subscriptionId, this.processId);
    // Pushes sent here before this link was added are read from the outbox: wait for their rows.
    await this.stores.settled();
    return pendingEvents(this.app, subscriptionId, this.timing.windowMs);
  }

  /** A client logged out or its connection closed: its reconnect window starts. */
  async detach(link: ClientLink, subscriptionId: string): Promise<void> {
    const set = this.clients.get(subscriptionId);
    if (!set?.delete(link)) return;
    if (set.size > 0) return;
    this.clients.delete(subscriptionId);
    await clientDisconnected(this.app, subscriptionId, this.processId);
  }

  /** Number of subscription ids with a connection on this process. */
  get connectedClients(): number {
    return this.clients.size;
  }

  /** The client acknowledged pushes (already checked to have been sent to it): delete them soon. */
  acknowledge(subscriptionId: string, seqs: readonly string[]): void {
    for (const seq of seqs) this.acks.push({ subscriptionId, seq });
    this.ackTimer ??= setTimeout(() => {
      this.ackTimer = undefined;
      this.flushAcks().catch((err: unknown) => this.logger.warn({ err }, 'livequery: deleting acknowledged pushes failed'));
    }, ACK_FLUSH_MS);
    this.ackTimer.unref();
  }

  private async flushAcks(): Promise<void> {
    const batch = this.acks;
    this.acks = [];
    // An acknowledged push may not be in the outbox yet: delete once its row is.
    await this.stores.settled();
    await deleteAcknowledged(this.app, batch);
  }

  // --- other processes ----------------------------------------------------------------------

  private onChannel(payload: string): void {
    // Our own messages: this process acted already.
    if (payload.startsWith((this.ownPrefix ??= senderPrefix(this.app.db.schema, this.processId)))) return;
    const m = parseChannelMessage(payload);
    if (!m || m.s !== this.app.db.schema || m.from === this.processId || this.stopped) return;
    if (m.k === 'subs') void this.reload(m.q).catch((err: unknown) => this.logger.warn({ err }, 'livequery: reloading subscriptions failed'));
    else if (m.k === 'push') this.deliver(m.e.map((x) => ({ seq: x.n, subscriptionId: x.i, payload: x.m })));
    else {
      void eventsBySeq(this.app, m.n)
        .then((events) => this.deliver(events))
        .catch((err: unknown) => this.logger.warn({ err }, 'livequery: reading large pushes failed'));
    }
  }

  /** The listener reconnected: notifications may have been lost, so reload and replay. */
  private async onReset(): Promise<void> {
    this.logger.warn('livequery: notification listener reconnected; reloading subscriptions and replaying pending pushes');
    try {
      this.registry.replaceAll(await loadAllSubscriptions(this.app.db));
      await this.replayPending();
    } catch (err) {
      this.logger.error({ err }, 'livequery: recovering after a listener reconnect failed');
    }
  }

  /** Sends every connected client what it has not acknowledged (links skip what they sent already). */
  private async replayPending(): Promise<void> {
    for (const [subscriptionId, links] of this.clients) {
      const events = await pendingEvents(this.app, subscriptionId, this.timing.windowMs);
      for (const l of links) for (const e of events) l.sendPush(subscriptionId, e.seq, e.payload);
    }
  }

  // --- lease --------------------------------------------------------------------------------

  private scheduleLease(): void {
    if (this.stopped) return;
    this.leaseTimer = setTimeout(() => void this.tick(), Math.max(200, Math.floor(this.timing.leaseMs / 3)));
    this.leaseTimer.unref();
  }

  private async tick(): Promise<void> {
    try {
      // Swept as dead during a long pause: the clients held here are connected all the same.
      if (!(await renewLease(this.app, this.processId, this.timing.leaseMs))) {
        await reclaimClients(this.app, this.processId, [...this.clients.keys()]);
        // Without a lease the other processes stopped announcing pushes to us: what they stored
        // meanwhile reaches our clients from the outbox.
        await awaitStoresInFlight(this.app);
        await this.replayPending();
      }
      const { expiredQueryIds } = await sweepExpired(this.app, this.timing.windowMs);
      if (expiredQueryIds.length > 0) await this.subscriptionsChanged(expiredQueryIds);
    } catch (err) {
      this.logger.warn({ err }, 'livequery: lease renewal or sweep failed');
    }
    this.scheduleLease();
  }
}
