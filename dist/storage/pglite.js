import { PGlite } from '@electric-sql/pglite';
import { translateDriverError } from './driver-errors.js';
async function run(db, statement) {
    const { text, values } = statement.toQuery();
    try {
        const res = await db.query(text, values);
        return res.rows;
    }
    catch (err) {
        throw translateDriverError(err);
    }
}
/**
 * Opens PGlite (PostgreSQL compiled to WASM, in process). PGlite is one connection, so
 * transactions are serialised by PGlite itself; statements outside a transaction wait for it.
 */
export async function openPglite(opts) {
    const db = await PGlite.create(opts.dataDir ?? 'memory://', {
        parsers: {
            20: (v) => Number(v),
            1700: (v) => Number(v),
            1184: (v) => v,
        },
    });
    await db.exec(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"; SET search_path = "${opts.schema}", public; SET TimeZone = 'UTC';`);
    let closed = false;
    return {
        engine: 'pglite',
        schema: opts.schema,
        query: (statement) => run(db, statement),
        transaction(work) {
            return db.transaction((tx) => work({ query: (s) => run(tx, s) }));
        },
        async exec(text) {
            await db.exec(text);
        },
        async ping() {
            await db.query('SELECT 1');
        },
        async listen(channel, onMessage) {
            // One PGlite is one process: its notifications are the in-process bus (delivered at commit).
            await db.listen(channel, onMessage);
        },
        async close() {
            if (closed)
                return;
            closed = true;
            await db.close();
        },
    };
}
//# sourceMappingURL=pglite.js.map