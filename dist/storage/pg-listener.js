import pg from 'pg';
/** `application_name` of listener connections. */
export const LISTENER_APPLICATION_NAME = 'larder-listener';
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;
/**
 * LISTENs on one channel over a dedicated connection (a pooled connection cannot hold a
 * LISTEN: it is handed to other work between queries). When the connection drops it reconnects
 * with backoff, and tells the owner to drop whatever it cached, since notifications sent in
 * between are gone. Resolves once the first LISTEN is in place, so a caller that awaited it
 * sees every notification committed afterwards.
 */
export async function startPgListener(opts) {
    let closed = false;
    let client;
    let timer;
    let backoff = MIN_BACKOFF_MS;
    const connect = async () => {
        // Named, so operators can tell it from pooled connections in pg_stat_activity.
        const c = new pg.Client({ connectionString: opts.url, application_name: LISTENER_APPLICATION_NAME });
        c.on('notification', (n) => {
            if (n.channel === opts.channel)
                opts.onMessage(n.payload ?? '');
        });
        // 'error' and 'end' both mean this connection is gone; reconnect once.
        let gone = false;
        const lost = () => {
            if (gone)
                return;
            gone = true;
            c.removeAllListeners('notification');
            void c.end().catch(() => { });
            if (!closed)
                schedule();
        };
        c.on('error', lost);
        c.on('end', lost);
        await c.connect();
        // Channel names are identifiers; this one is a fixed constant, quoted all the same.
        await c.query(`LISTEN "${opts.channel.replace(/"/g, '""')}"`);
        // close() may have run while this (re)connection was being made: do not keep it open.
        if (closed) {
            gone = true;
            await c.end().catch(() => { });
            return;
        }
        client = c;
    };
    const schedule = () => {
        if (timer || closed)
            return;
        timer = setTimeout(async () => {
            timer = undefined;
            try {
                await connect();
                backoff = MIN_BACKOFF_MS;
                if (!closed)
                    opts.onReset();
            }
            catch {
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
                schedule();
            }
        }, backoff);
        timer.unref();
    };
    await connect();
    return {
        async close() {
            closed = true;
            if (timer)
                clearTimeout(timer);
            timer = undefined;
            const c = client;
            client = undefined;
            if (c) {
                c.removeAllListeners();
                c.on('error', () => { });
                await c.end().catch(() => { });
            }
        },
    };
}
//# sourceMappingURL=pg-listener.js.map