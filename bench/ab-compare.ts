/**
 * `tsx bench/ab-compare.ts --root <baseline checkout> [--only get,range] [--duration 3] [--rounds 4] [--workers 2]
 *   [--workers-a N] [--env-a K=V,K=V] [--env-b K=V,K=V] [--connections 32] [--each]`
 *
 * A/B comparison on a busy machine: starts the baseline checkout's server and this checkout's
 * server side by side (each on its own schema with the same seeded data) and alternates short
 * load runs between them, so both see the same background load on average. Prints each
 * side's throughput, CPU time per operation (server processes, their PostgreSQL backends)
 * and peak RSS, and B/A. `--workers-a` gives side A another worker count and `--env-a`/`--env-b`
 * extra server settings (e.g. LARDER_POOL_SIZE=8), so one checkout can be compared with itself
 * (`--root .`). For tuning by hand; not part of `npm run bench`.
 */
import type pg from 'pg';
import { BENCH_CLASS } from './bench-data.ts';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, openPool } from './bench-database.ts';
import { arg, envArg } from './cli-args.ts';
import { addIndexesWithCli } from './cli-indexes.ts';
import { runHttpLoad } from './http-load.ts';
import { rssMb } from './memory-sampler.ts';
import { backendCpu, clientBackendPids, cpuTotal } from './process-cpu.ts';
import { seed } from './seed.ts';
import { startServer, type ServerProcess } from './server-process.ts';
import { workloads, type Workload } from './workloads.ts';

/** Commits of the pool's database so far (both sides share it, but only the side under load commits). */
async function commits(pool: pg.Pool): Promise<number> {
  return Number((await pool.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : Math.round((s[s.length / 2 - 1] + s[s.length / 2]) / 2);
}

interface Side {
  label: string;
  server: ServerProcess;
  pool: pg.Pool;
  schema: string;
  work: Workload[];
  ok: Map<string, number>;
  secs: Map<string, number>;
  larderCpu: Map<string, number>;
  pgCpu: Map<string, number>;
  /** Server CPU per object of each round, us (the median moves less than the total on a loaded machine). */
  rounds: Map<string, number[]>;
  /** PostgreSQL CPU per object of each round, us. */
  pgRounds: Map<string, number[]>;
  /** The database's commits per request of each round (statements, for single writes). */
  commitRounds: Map<string, number[]>;
  rss: number;
}

async function main(): Promise<void> {
  const root = arg('--root', '');
  if (!root) throw new Error('--root <baseline checkout> is required');
  const only = arg('--only', 'get,range,create,batch').split(',');
  const secs = Number(arg('--duration', '3'));
  const rounds = Number(arg('--rounds', '4'));
  const workers = Number(arg('--workers', '2'));
  const connections = Number(arg('--connections', '32'));
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const sides: Side[] = [];
  try {
    const sideSpecs = [
      ['A (baseline)', root, Number(arg('--workers-a', String(workers))), envArg('--env-a')],
      ['B (this checkout)', undefined, workers, envArg('--env-b')],
    ] as const;
    for (const [label, r, n, env] of sideSpecs) {
      const schema = freshSchemaName();
      const pool = openPool(url, schema, 2);
      const storage = { kind: 'postgres' as const, url, schema };
      const seeder = await startServer(storage, 1, { root: r });
      const seeded = await seed(seeder.url, 10_000, pool).finally(() => seeder.stop());
      await addIndexesWithCli(storage, BENCH_CLASS, ['score', 'category']);
      await pool.query(`ANALYZE "${BENCH_CLASS}"`);
      const server = await startServer(storage, n, { root: r, env });
      const work = workloads({ benchIds: seeded.benchIds, ownerIds: seeded.ownerIds, hotId: seeded.benchIds[0] });
      sides.push({ label, server, pool, schema, work, ok: new Map(), secs: new Map(), larderCpu: new Map(), pgCpu: new Map(), rounds: new Map(), pgRounds: new Map(), commitRounds: new Map(), rss: 0 });
    }
    for (const key of only) {
      for (const s of sides) {
        const w = s.work.find((x) => x.key === key);
        if (w) await runHttpLoad(s.server.url, w.larder, { durationSec: 2 }, connections);
      }
      for (let i = 0; i < rounds; i++) {
        for (const s of i % 2 ? [...sides].reverse() : sides) {
          const w = s.work.find((x) => x.key === key);
          if (!w) throw new Error(`no workload ${key}`);
          const serverPids = [s.server.pid, ...s.server.workerPids()];
          // Both sides' pools are in the bench database, but only the side under load uses CPU.
          const pgPids = await clientBackendPids(s.pool);
          const c0 = await commits(s.pool);
          const l0 = cpuTotal(serverPids);
          const pg = backendCpu(pgPids);
          const timer = setInterval(() => {
            s.rss = Math.max(s.rss, ...serverPids.map((p) => rssMb(p) ?? 0));
            pg.sample();
          }, 250);
          const res = await runHttpLoad(s.server.url, w.larder, { durationSec: secs }, connections).finally(() => clearInterval(timer));
          const add = (m: Map<string, number>, v: number) => m.set(key, (m.get(key) ?? 0) + v);
          add(s.ok, res.ok * w.objectsPerOp);
          add(s.secs, res.durationSec);
          const larder = cpuTotal(serverPids) - l0;
          add(s.larderCpu, larder);
          // Backends the pools opened during the round (after an idle one closed) count from zero.
          const opened = (await clientBackendPids(s.pool)).filter((pid) => !pgPids.includes(pid));
          const pgRound = pg.used() + cpuTotal(opened);
          add(s.pgCpu, pgRound);
          const perObject = Math.round((larder * 1e6) / Math.max(1, res.ok * w.objectsPerOp));
          s.rounds.set(key, [...(s.rounds.get(key) ?? []), perObject]);
          s.pgRounds.set(key, [...(s.pgRounds.get(key) ?? []), Math.round((pgRound * 1e6) / Math.max(1, res.ok * w.objectsPerOp))]);
          // PostgreSQL publishes a backend's counts within a second; the two reads are commits too.
          await new Promise((r) => setTimeout(r, 1100));
          const perRequest = ((await commits(s.pool)) - c0 - 2) / Math.max(1, res.ok);
          s.commitRounds.set(key, [...(s.commitRounds.get(key) ?? []), perRequest]);
          if (process.argv.includes('--each')) console.log(`  round ${i} ${s.label}: ${Math.round(res.ok / res.durationSec)}/s, p50 ${res.p50Ms} ms, p99 ${res.p99Ms} ms, server CPU ${perObject} us per object, PostgreSQL ${Math.round((pgRound * 1e6) / Math.max(1, res.ok * w.objectsPerOp))} us, commits per request ${perRequest.toFixed(2)}, backends ${pgPids.length}+${opened.length}`);
        }
      }
      const line = sides.map((s) => {
        const ok = s.ok.get(key) ?? 0;
        const perOp = (v: number | undefined) => Math.round(((v ?? 0) * 1e6) / Math.max(1, ok));
        return `${s.label}: ${Math.round(ok / (s.secs.get(key) ?? 1))}/s, CPU us per object larder ${perOp(s.larderCpu.get(key))} pg ${perOp(s.pgCpu.get(key))}`;
      });
      const [a, b] = sides.map((s) => (s.ok.get(key) ?? 0) / (s.secs.get(key) ?? 1));
      console.log(`${key.padEnd(7)} ${line.join(' | ')} | B/A ${(b / a).toFixed(2)}`);
      const medians = sides.map((s) => median(s.rounds.get(key) ?? []));
      console.log(`${''.padEnd(7)} median of the rounds' server CPU per object: ${sides.map((s, i) => `${s.label} ${medians[i]} us`).join(', ')}, B/A ${(medians[1] / medians[0]).toFixed(2)}`);
      const pgMedians = sides.map((s) => median(s.pgRounds.get(key) ?? []));
      const lower = (pick: (s: Side) => Map<string, number[]>) => {
        const [a, b] = sides.map((s) => pick(s).get(key) ?? []);
        return b.filter((v, i) => v < (a[i] ?? Infinity)).length;
      };
      console.log(`${''.padEnd(7)} median of the rounds' PostgreSQL CPU per object: ${sides.map((s, i) => `${s.label} ${pgMedians[i]} us`).join(', ')}; rounds B lower: server ${lower((s) => s.rounds)}, PostgreSQL ${lower((s) => s.pgRounds)} of ${rounds}; commits per request ${sides.map((s) => `${s.label} ${(s.commitRounds.get(key) ?? []).map((c) => c.toFixed(2)).join(' ')}`).join(', ')}`);
    }
    console.log(`peak RSS of any server process: ${sides.map((s) => `${s.label} ${Math.round(s.rss)} MB`).join(', ')}`);
  } finally {
    for (const s of sides) {
      await s.server.stop();
      await s.pool.end();
      await dropSchema(url, s.schema);
    }
  }
}

void main();
