// The embedded engine's thread (worker_threads): PGlite runs here, so a long statement blocks
// this thread, never the event loop that answers HTTP. The host (pglite-host.ts) sends one
// statement at a time and terminates this thread to cancel one (PGlite has no cancel), then
// activates a warm spare on the same data directory; PostgreSQL's crash recovery makes that safe.
// Plain JavaScript on purpose: a worker thread does not inherit the TypeScript loader of the
// main thread, and this file needs nothing but PGlite. Messages: pglite-protocol.ts.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { closeStatement, namedStatement, unnamedStatement } from './pglite-messages.mjs';
import { collect, decode, reset } from './pglite-wire.mjs';

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

/** Where PGlite's PostgreSQL finds its data directory inside the WebAssembly file system. */
const PGDATA = '/pglite/data';

let activate;
/** Resolved by the host's `activate`: until then this worker is the warm spare of the engine. */
const activated = new Promise((resolve) => (activate = resolve));

/**
 * This thread's CPU time and time spent waiting for a CPU so far, ms (Linux: schedstat of the
 * calling thread; undefined elsewhere). Reported with `ready`, so the cost of opening the data
 * directory can be told apart from a busy machine's queueing (docs/benchmarks.md).
 */
function threadTimes() {
  try {
    const [cpu, runq] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return { cpuMs: cpu / 1e6, runqMs: runq / 1e6 };
  } catch {
    return undefined;
  }
}
/** threadTimes() when the host activated this worker. */
let activatedAt;

/**
 * PGlite's NodeFS, mounted only once the host activates this worker. Everything before that
 * (loading PGlite, instantiating the WebAssembly, unpacking PostgreSQL's share files) runs while
 * another worker still owns the data directory, so a worker that replaces a cancelled one only
 * has to start PostgreSQL on the data directory. PGlite awaits initialSyncFs() after
 * instantiating and before it looks at the data directory: the one point to wait at.
 */
class DeferredNodeFS extends NodeFS {
  async init(pg, emscriptenOpts) {
    this.pg = pg;
    return { emscriptenOpts };
  }

  async initialSyncFs() {
    post({ standing: true });
    await activated;
    activatedAt = threadTimes();
    const mod = this.pg.Module;
    mod.FS.mkdirTree(PGDATA);
    mod.FS.mount(mod.NODEFS, { root: this.rootDir }, PGDATA);
  }
}

async function open() {
  const db = await PGlite.create({
    fs: new DeferredNodeFS(init.dataDir),
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

/** Statement names this engine has prepared (a restarted worker starts with none). */
const preparedNames = new Map();

/**
 * Channels this engine listens on, by the name PostgreSQL reports in a notification (PGlite's
 * toPostgresName: unquoted names fold to lower case), to the name the host listens by.
 */
const listening = new Map();

function postgresName(channel) {
  return channel.startsWith('"') && channel.endsWith('"') ? channel.slice(1, -1) : channel.toLowerCase();
}

function notify(channel, payload) {
  const name = listening.get(channel);
  if (name !== undefined) post({ notify: name, payload });
}

/**
 * Sends protocol messages to PostgreSQL in ONE call into PGlite and decodes the answer
 * (pglite-wire.mjs). Synchronous inside: nothing else runs in this thread meanwhile, and the
 * worker runs one operation at a time (see `serial` below), so PGlite's own mutex is not needed.
 * PGlite's execProtocol would also parse each message into an object first; the raw stream
 * hands over the bytes only.
 * @param {import('@electric-sql/pglite').PGlite} db @param {Uint8Array} bytes
 */
async function roundTrip(db, bytes) {
  reset();
  await db.execProtocolRawStream(bytes, { syncToFs: false, onRawData: collect });
  return decode(db.parsers, notify);
}

/**
 * A statement the host marked as prepared (get by id, single insert, update by id), as a named
 * statement sent in ONE call into PGlite: Parse (first use only), Bind, Describe, Execute, Sync.
 * PGlite's query() makes six calls (parse, describe statement, bind, describe portal, execute,
 * sync) and plans every time; this path measured 570-735 us against 2,000-3,000 us per get by id
 * (docs/benchmarks.md, "Performance work (issue 16)").
 * @param {import('@electric-sql/pglite').PGlite} db @param {string} text @param {unknown[]} values
 */
async function preparedQuery(db, text, values) {
  let name = preparedNames.get(text);
  const first = name === undefined;
  if (first) name = `larder_${preparedNames.size}`;
  let rows;
  try {
    rows = await roundTrip(db, namedStatement(name, first ? text : undefined, values));
  } catch (err) {
    // A first run that failed after its Parse (e.g. at Bind) may have left the name prepared:
    // close it, so the next first run can prepare it again.
    if (!preparedNames.has(text)) await roundTrip(db, closeStatement(name)).catch(() => {});
    throw err;
  }
  preparedNames.set(text, name);
  return rows;
}

/**
 * Any other statement, the same way through the unnamed statement: one call into PGlite instead
 * of six, planned on every run as PostgreSQL plans node-postgres' statements. Statements without
 * parameters too (BEGIN, COMMIT, settings): PGlite's query() sends those by the extended
 * protocol as well.
 * @param {import('@electric-sql/pglite').PGlite} db @param {string} text @param {unknown[]} values
 */
function unnamedQuery(db, text, values) {
  return roundTrip(db, unnamedStatement(text, values));
}

/** @param {import('@electric-sql/pglite').PGlite} db @param {import('./pglite-protocol.ts').HostMessage} m */
async function handle(db, m) {
  switch (m.op) {
    case 'query':
      return m.prepared ? preparedQuery(db, m.text, m.values) : unnamedQuery(db, m.text, m.values);
    case 'exec':
      await db.exec(m.text);
      return [];
    case 'listen':
      // PGlite delivers NOTIFY in process (at commit): in the answer of the statement that
      // commits, read by roundTrip (notify) or, for exec, by PGlite (this callback).
      await db.listen(m.channel, (payload) => post({ notify: m.channel, payload }));
      listening.set(postgresName(m.channel), m.channel);
      return [];
    case 'close':
      await db.close();
      return [];
    default:
      throw new Error('unknown operation');
  }
}

/** @type {import('@electric-sql/pglite').PGlite} */
let db;
// The host sends `activate` first and statements only after `ready`.
/** Operations run one after another even if the host sent several (it waits for each answer). */
let serial = Promise.resolve();
port.on('message', (m) => {
  if (m.op === 'activate') activate();
  else {
    serial = serial.then(() => handle(db, m)).then(
      (rows) => post({ id: m.id, rows }),
      (err) => post({ id: m.id, error: errorOf(err) }),
    );
  }
});
try {
  db = await open();
  const now = threadTimes();
  post(now && activatedAt ? { ready: true, cpuMs: now.cpuMs - activatedAt.cpuMs, runqMs: now.runqMs - activatedAt.runqMs } : { ready: true });
} catch (err) {
  post({ failed: errorOf(err) });
}
