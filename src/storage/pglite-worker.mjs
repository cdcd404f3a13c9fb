// The embedded engine's thread (worker_threads): PGlite runs here, so a long statement blocks
// this thread, never the event loop that answers HTTP. The host (pglite-host.ts) sends one
// statement at a time and terminates this thread to cancel one (PGlite has no cancel), then
// starts a new one on the same data directory; PostgreSQL's crash recovery makes that safe.
// Plain JavaScript on purpose: a worker thread does not inherit the TypeScript loader of the
// main thread, and this file needs nothing but PGlite. Messages: pglite-protocol.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** @type {import('./pglite-protocol.ts').WorkerInit} */
const init = workerData;
const port = parentPort;
if (!port) throw new Error('pglite-worker.mjs runs only as a worker thread');

/** @param {import('./pglite-protocol.ts').WorkerMessage} m */
function post(m) {
  port.postMessage(m);
}

/** The driver error as plain data (SQLSTATE, constraint...), rebuilt by the host. */
function errorOf(err) {
  const out = { message: err instanceof Error ? err.message : String(err) };
  if (typeof err === 'object' && err !== null) {
    for (const [k, v] of Object.entries(err)) if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  }
  return out;
}

async function open() {
  const db = await PGlite.create(init.dataDir, {
    pgliteWasmModule: init.wasmModule,
    parsers: {
      20: (v) => Number(v),
      1700: (v) => Number(v),
      1184: (v) => v,
    },
  });
  await db.exec(`CREATE SCHEMA IF NOT EXISTS "${init.schema}"; SET search_path = "${init.schema}", public; SET TimeZone = 'UTC';`);
  return db;
}

/** @param {import('@electric-sql/pglite').PGlite} db @param {import('./pglite-protocol.ts').HostMessage} m */
async function handle(db, m) {
  switch (m.op) {
    case 'query':
      return (await db.query(m.text, m.values)).rows;
    case 'exec':
      await db.exec(m.text);
      return [];
    case 'listen':
      // PGlite delivers NOTIFY in process (at commit); forward each to the host.
      await db.listen(m.channel, (payload) => post({ notify: m.channel, payload }));
      return [];
    case 'close':
      await db.close();
      return [];
    default:
      throw new Error('unknown operation');
  }
}

try {
  const db = await open();
  port.on('message', (m) => {
    handle(db, m).then(
      (rows) => post({ id: m.id, rows }),
      (err) => post({ id: m.id, error: errorOf(err) }),
    );
  });
  post({ ready: true });
} catch (err) {
  post({ failed: errorOf(err) });
}
