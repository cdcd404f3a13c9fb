// A copy of the way src/storage/pglite-worker.mjs opens the data directory (a spare that waits
// for `activate` before mounting it), instrumented: it records, for each phase of the open, the
// wall clock and this thread's CPU time and CPU queueing (/proc/thread-self/schedstat, Linux).
// Phases: PostgreSQL's start (Module.callMain), PGlite's array-type query (_initArrayTypes),
// Larder's SETs. Used by reopen-cost.mjs; plain JavaScript like the worker it copies.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

const schedstat = () => readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
const marks = [];
const mark = (name) => {
  const [cpu, runq] = schedstat();
  marks.push({ name, at: performance.now(), cpuMs: cpu / 1e6, runqMs: runq / 1e6 });
};
const PGDATA = '/pglite/data';
let activate;
const activated = new Promise((resolve) => (activate = resolve));

class DeferredNodeFS extends NodeFS {
  async init(pg, emscriptenOpts) {
    this.pg = pg;
    return { emscriptenOpts };
  }

  async initialSyncFs() {
    parentPort.postMessage({ standing: true });
    await activated;
    mark('activated');
    const mod = this.pg.Module;
    mod.FS.mkdirTree(PGDATA);
    mod.FS.mount(mod.NODEFS, { root: this.rootDir }, PGDATA);
    const callMain = mod.callMain.bind(mod);
    mod.callMain = (args) => {
      const r = callMain(args);
      mark('postgres started');
      return r;
    };
    const initArrayTypes = this.pg._initArrayTypes.bind(this.pg);
    this.pg._initArrayTypes = async (o) => {
      const r = await initArrayTypes(o);
      mark('array types');
      return r;
    };
  }
}

let db;
parentPort.on('message', async (m) => {
  if (m.op === 'activate') return activate();
  try {
    const rows = m.op === 'exec' ? (await db.exec(m.text), []) : m.op === 'close' ? (await db.close(), []) : (await db.query(m.text)).rows;
    parentPort.postMessage({ id: m.id, rows });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err) });
  }
});
const extra = workerData.startParams ?? [];
db = await PGlite.create({
  fs: new DeferredNodeFS(workerData.dataDir),
  pgliteWasmModule: workerData.wasmModule,
  ...(extra.length ? { startParams: [...PGlite.defaultStartParams, ...extra] } : {}),
});
await db.exec(`CREATE SCHEMA IF NOT EXISTS "s"; SET search_path = "s", public; SET TimeZone = 'UTC';`);
mark('ready');
parentPort.postMessage({ ready: true, marks });
