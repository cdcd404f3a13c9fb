/**
 * `tsx bench/create-ab.ts [--root <baseline checkout>] [--url-b <database url>] [--rounds 6] [--amount 2000] [--connections 8] [--pglite]`
 *
 * Server CPU per `POST /1.1/classes/<Class>` (an object of 6 fields with an ACL, app key), A/B:
 * the baseline checkout's server and this checkout's, each on its own schema of the bench
 * database, driven in alternation with a fixed number of creates; CPU from /proc/<pid>/stat.
 * `--url-b` runs side B on another database URL (e.g. the same server over its Unix socket:
 * `postgres://postgres@/larder?host=/var/run/postgresql`).
 * `--pglite`: both sides on the embedded engine instead, each on a fresh data directory of its
 * own (the engine's worker thread is in the server process, so its CPU is counted too).
 * Each round also prints its creates per second of wall time.
 */
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName } from './bench-database.ts';
import { arg } from './cli-args.ts';
import { runHttpLoad } from './http-load.ts';
import { cpuOf, cpuUsed } from './process-cpu.ts';
import { startServer, type ServerProcess, type ServerStorage } from './server-process.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

let seq = 0;
const spec = {
  method: 'POST' as const,
  path: () => '/1.1/classes/CreateBench',
  body: () => JSON.stringify({
    score: seq % 1000, category: `c${seq % 7}`, n: 0, name: `object ${seq++}`, flag: true,
    owner: { __type: 'Pointer', className: 'Owner', objectId: 'a'.repeat(24) },
    ACL: { '*': { read: true }, role_admin: { write: true } },
  }),
};

async function main(): Promise<void> {
  const root = arg('--root', '');
  const rounds = Number(arg('--rounds', '6'));
  const amount = Number(arg('--amount', '2000'));
  const connections = Number(arg('--connections', '8'));
  const embedded = process.argv.includes('--pglite');
  const url = embedded ? '' : benchDatabaseUrl();
  if (!embedded) await ensureDatabase(url);
  const dataDir = embedded ? mkdtempSync(join(tmpdir(), 'larder-create-ab-')) : '';
  const sides: { label: string; server: ServerProcess; schema: string; url: string; us: number[]; perSec: number[] }[] = [];
  try {
    for (const [label, r, u] of [['A', root, url], ['B', undefined, arg('--url-b', url)]] as const) {
      const schema = freshSchemaName() + label;
      const storage: ServerStorage = embedded ? { kind: 'pglite', dataDir: join(dataDir, label) } : { kind: 'postgres', url: u, schema };
      const server = await startServer(storage, 1, { root: r || undefined });
      sides.push({ label, server, schema, url: u, us: [], perSec: [] });
      await runHttpLoad(server.url, spec, { amount: 1000 }, connections);
    }
    for (let i = 0; i < rounds; i++) {
      for (const s of i % 2 ? [...sides].reverse() : sides) {
        const pids = [s.server.pid, ...s.server.workerPids()];
        const before = cpuOf(pids);
        const t0 = performance.now();
        const res = await runHttpLoad(s.server.url, spec, { amount }, connections);
        // Creates per second of wall time (autocannon's own rate is sampled once a second: too coarse for short runs).
        const perSec = Math.round((res.ok * 1000) / (performance.now() - t0));
        const used = cpuUsed(before, cpuOf(pids), pids);
        s.us.push(Math.round((used * 1e6) / res.ok));
        s.perSec.push(perSec);
        console.log(`round ${i} ${s.label}: ${perSec}/s, larder CPU ${s.us.at(-1)} us per create, non-2xx ${res.non2xx}; load ${loadavg()[0].toFixed(1)}`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const s of sides) console.log(`${s.label}: median ${median(s.us)} us per create (${s.us.join(', ')}); median ${median(s.perSec)}/s (${s.perSec.join(', ')})`);
  } finally {
    for (const s of sides) {
      await s.server.stop();
      if (!embedded) await dropSchema(s.url, s.schema);
    }
    if (embedded) rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
