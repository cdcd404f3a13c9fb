/**
 * Keeps the shared online table in step with this process's connections, and runs the process
 * lease: renew it, and sweep processes whose lease ran out (their users go offline). Every
 * change of one user runs after the previous one (a chain per user), so a quick
 * connect-disconnect-connect can never leave the table saying the opposite of the sockets.
 */
import type { AppContext, Logger } from '../../../module-api/context.ts';
import { announceOnline } from './friend-events.ts';
import type { Hub } from './hub.ts';
import { dropProcess, markConnected, markDisconnected, renewLease, sweepDead } from './online-registry.ts';
import { friendsSettings } from '../friends-settings.ts';

/** One per app and process: online rows of this process's users, and the process lease. */
export class PresenceTracker {
  /** Users this process has a row for in _larder_online. */
  private readonly registered = new Set<string>();
  private readonly chains = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly app: AppContext,
    private readonly hub: Hub,
    private readonly logger: Logger,
  ) {}

  /** Registers this process and starts renewing its lease. */
  async start(): Promise<void> {
    await renewLease(this.app, this.hub.processId, friendsSettings(this.app).friendsLeaseMs);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    // At most a second apart, so that a changed lease takes effect quickly; an UPDATE and a DELETE a second is cheap.
    this.timer = setTimeout(() => void this.tick(), Math.min(1000, Math.max(200, Math.floor(friendsSettings(this.app).friendsLeaseMs / 3))));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const kept = await renewLease(this.app, this.hub.processId, friendsSettings(this.app).friendsLeaseMs);
      // Our lease had run out (a long pause, the database away) and another process swept our
      // users: put them back, and tell friends they are online again.
      if (!kept) for (const u of [...this.registered]) this.reregister(u);
      for (const u of await sweepDead(this.app)) await this.announce(u, false);
    } catch (err) {
      this.logger.warn({ err }, 'friends: renewing the presence lease failed');
    }
    this.schedule();
  }

  private reregister(userId: string): void {
    this.registered.delete(userId);
    this.sync(userId);
  }

  /** Brings the shared table in line with whether this process holds the user's connections. */
  sync(userId: string): void {
    const prev = this.chains.get(userId) ?? Promise.resolve();
    const next = prev.then(() => this.apply(userId)).catch((err: unknown) => this.logger.error({ err, userId }, 'friends: updating online state failed'));
    this.chains.set(userId, next);
    void next.then(() => {
      if (this.chains.get(userId) === next) this.chains.delete(userId);
    });
  }

  private async apply(userId: string): Promise<void> {
    if (this.stopped) return;
    const want = this.hub.has(userId);
    if (want === this.registered.has(userId)) return;
    if (want) {
      const first = await markConnected(this.app, userId, this.hub.processId);
      this.registered.add(userId);
      if (first) await this.announce(userId, true);
    } else {
      this.registered.delete(userId);
      const last = await markDisconnected(this.app, userId, this.hub.processId);
      if (last) await this.announce(userId, false);
    }
  }

  /** Announces a change, once more after a moment if the database refused (a transient error). */
  private async announce(userId: string, online: boolean): Promise<void> {
    try {
      await announceOnline(this.app, userId, online);
    } catch (err) {
      this.logger.warn({ err, userId }, 'friends: announcing online state failed; retrying once');
      await new Promise((r) => setTimeout(r, 100));
      await announceOnline(this.app, userId, online);
    }
  }

  /** Waits for pending changes, then removes this process and announces its users offline. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.chains.values()]);
    this.stopped = true;
    const offline = await dropProcess(this.app, this.hub.processId);
    this.registered.clear();
    for (const u of offline) await announceOnline(this.app, u, false).catch(() => {});
  }
}
