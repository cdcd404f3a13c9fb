// What reopening the embedded engine's data directory costs, phase by phase, in CPU time of the
// engine's thread (which a busy machine does not inflate) next to wall time (which it does).
// The same sequence as a cancellation in src/storage/pglite-host.ts: a statement runs, its worker
// is terminated mid-statement, a warm spare is activated on the same directory (never two
// instances on it at once).
//
//   node bench/embedded-reopen/reopen-cost.mjs [--dir DIR] [--rows 30000] [--rounds 5]
//     [--no-checkpoint] [--param shared_buffers=16MB]...
//
// --dir reuses a data directory (seeded once); --no-checkpoint leaves the seeding's WAL to be
// replayed by the first reopen; --param adds a PostgreSQL setting (-c) to the start.
// Results: docs/benchmarks.md, "The embedded engine under expensive queries".
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const dataDir = option('dir', '') || mkdtempSync(join(tmpdir(), 'larder-reopen-'));
const rows = Number(option('rows', '30000'));
const rounds = Number(option('rounds', '5'));
const startParams = args.flatMap((a, i) => (a === '--param' ? ['-c', args[i + 1]] : []));
const wasmModule = await WebAssembly.compile(readFileSync(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite'))));

function spare() {
  const worker = new Worker(new URL('./reopen-worker.mjs', import.meta.url), { workerData: { dataDir, wasmModule, startParams } });
  const standing = new Promise((resolve) => worker.once('message', (m) => m.standing && resolve()));
  const ready = new Promise((resolve) => worker.on('message', (m) => m.ready && resolve(m.marks)));
  return { worker, standing, ready };
}

let seq = 0;
function send(worker, m) {
  const id = ++seq;
  return new Promise((resolve, reject) => {
    const onMessage = (a) => {
      if (a.id !== id) return;
      worker.off('message', onMessage);
      if (a.error) reject(new Error(a.error));
      else resolve(a.rows);
    };
    worker.on('message', onMessage);
    worker.postMessage({ ...m, id });
  });
}

let current = spare();
await current.standing;
current.worker.postMessage({ op: 'activate' });
await current.ready;
const [{ seeded }] = await send(current.worker, { op: 'query', text: `SELECT to_regclass('s.big') IS NOT NULL AS seeded` });
if (!seeded) {
  await send(current.worker, { op: 'exec', text: 'CREATE TABLE s.big (id text PRIMARY KEY, data jsonb)' });
  for (let from = 1; from <= rows; from += 1000) {
    await send(current.worker, { op: 'exec', text: `INSERT INTO s.big SELECT 'b' || g, jsonb_build_object('n', g, 'text', repeat(md5(g::text), 20)) FROM generate_series(${from}, ${Math.min(rows, from + 999)}) g` });
  }
}
if (!args.includes('--no-checkpoint')) await send(current.worker, { op: 'exec', text: 'CHECKPOINT' });
console.log(`data ${dataDir}, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}, extra start parameters: ${startParams.join(' ') || 'none'}`);
for (let round = 0; round < rounds; round++) {
  const next = spare();
  await next.standing;
  // A scan that runs for seconds, cut after 300 ms as the slice would.
  const scan = send(current.worker, { op: 'query', text: `SELECT count(*) FROM s.big WHERE data->>'text' ~ 'z.*y.*x.*w.*v$' OR data->>'text' ~ '1z.*y.*x.*w.*v$'` }).catch(() => {});
  await new Promise((r) => setTimeout(r, 300));
  const t0 = performance.now();
  await current.worker.terminate();
  void scan;
  const t1 = performance.now();
  next.worker.postMessage({ op: 'activate' });
  const marks = await next.ready;
  const base = marks.find((m) => m.name === 'activated');
  let prev = base;
  const phases = marks.filter((m) => m.name !== 'activated').map((m) => {
    const line = `${m.name} ${(m.cpuMs - prev.cpuMs).toFixed(0)} ms CPU`;
    prev = m;
    return line;
  });
  const last = marks[marks.length - 1];
  console.log(`terminate ${(t1 - t0).toFixed(0)} ms | reopen ${(performance.now() - t1).toFixed(0)} ms wall, ${(last.cpuMs - base.cpuMs).toFixed(0)} ms CPU, ${(last.runqMs - base.runqMs).toFixed(0)} ms waiting for a CPU | ${phases.join(', ')}`);
  current = next;
}
await send(current.worker, { op: 'close' });
await current.worker.terminate();
