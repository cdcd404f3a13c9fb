import { announceOnline } from './friend-events.js';
import { dropProcess, markConnected, markDisconnected, renewLease, sweepDead } from './online-registry.js';
/** One per app and process: online rows of this process's users, and the process lease. */
export class PresenceTracker {
    app;
    hub;
    logger;
    /** Users this process has a row for in _larder_online. */
    registered = new Set();
    chains = new Map();
    timer;
    stopped = false;
    constructor(app, hub, logger) {
        this.app = app;
        this.hub = hub;
        this.logger = logger;
    }
    /** Registers this process and starts renewing its lease. */
    async start() {
        await renewLease(this.app, this.hub.processId, this.app.settings.friendsLeaseMs);
        this.schedule();
    }
    schedule() {
        if (this.stopped)
            return;
        // At most a second apart, so that a changed lease takes effect quickly; an UPDATE and a DELETE a second is cheap.
        this.timer = setTimeout(() => void this.tick(), Math.min(1000, Math.max(200, Math.floor(this.app.settings.friendsLeaseMs / 3))));
        this.timer.unref();
    }
    async tick() {
        try {
            const kept = await renewLease(this.app, this.hub.processId, this.app.settings.friendsLeaseMs);
            // Our lease had run out (a long pause, the database away) and another process swept our
            // users: put them back, and tell friends they are online again.
            if (!kept)
                for (const u of [...this.registered])
                    this.reregister(u);
            for (const u of await sweepDead(this.app))
                await this.announce(u, false);
        }
        catch (err) {
            this.logger.warn({ err }, 'friends: renewing the presence lease failed');
        }
        this.schedule();
    }
    reregister(userId) {
        this.registered.delete(userId);
        this.sync(userId);
    }
    /** Brings the shared table in line with whether this process holds the user's connections. */
    sync(userId) {
        const prev = this.chains.get(userId) ?? Promise.resolve();
        const next = prev.then(() => this.apply(userId)).catch((err) => this.logger.error({ err, userId }, 'friends: updating online state failed'));
        this.chains.set(userId, next);
        void next.then(() => {
            if (this.chains.get(userId) === next)
                this.chains.delete(userId);
        });
    }
    async apply(userId) {
        if (this.stopped)
            return;
        const want = this.hub.has(userId);
        if (want === this.registered.has(userId))
            return;
        if (want) {
            const first = await markConnected(this.app, userId, this.hub.processId);
            this.registered.add(userId);
            if (first)
                await this.announce(userId, true);
        }
        else {
            this.registered.delete(userId);
            const last = await markDisconnected(this.app, userId, this.hub.processId);
            if (last)
                await this.announce(userId, false);
        }
    }
    /** Announces a change, once more after a moment if the database refused (a transient error). */
    async announce(userId, online) {
        try {
            await announceOnline(this.app, userId, online);
        }
        catch (err) {
            this.logger.warn({ err, userId }, 'friends: announcing online state failed; retrying once');
            await new Promise((r) => setTimeout(r, 100));
            await announceOnline(this.app, userId, online);
        }
    }
    /** Waits for pending changes, then removes this process and announces its users offline. */
    async stop() {
        if (this.timer)
            clearTimeout(this.timer);
        await Promise.all([...this.chains.values()]);
        this.stopped = true;
        const offline = await dropProcess(this.app, this.hub.processId);
        this.registered.clear();
        for (const u of offline)
            await announceOnline(this.app, u, false).catch(() => { });
    }
}
//# sourceMappingURL=presence-tracker.js.map