/**
 * `tsx bench/cpu-cost.ts [--only get,range] [--duration 5] [--workers 2] [--root <checkout>] [--rounds 1] [--prof] [--node-args "..."]`
 *
 * CPU cost per operation of Larder's workloads: CPU seconds used by the server's processes, by
 * the PostgreSQL backends of the bench database and by this process (the load generator),
 * divided by the operations served. On a shared, busy machine throughput swings with other
 * people's work; CPU time per operation moves much less, so A/B comparisons (`--root` another
 * checkout, alternating) use it. `--prof` also CPU-profiles the server (node --cpu-prof) and
 * prints the functions with the most self time. For tuning by hand; not part of `npm run bench`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_CLASS } from './bench-data.ts';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, openPool } from './bench-database.ts';
import { arg } from './cli-args.ts';
import { addIndexesWithCli } from './cli-indexes.ts';
import { runHttpLoad } from './http-load.ts';
import { rssMb } from './memory-sampler.ts';
import { topFunctions } from './profile-summary.ts';
import { seed } from './seed.ts';
import { backendPids, cpuOf, cpuUsed } from './process-cpu.ts';
import { startServer, type ServerProcess } from './server-process.ts';
import { workloads } from './workloads.ts';

async function main(): Promise<void> {
  const only = arg('--only', 'get,range,create,batch').split(',');
  const secs = Number(arg('--duration', '5'));
  const workers = Number(arg('--workers', '2'));
  const rounds = Number(arg('--rounds', '1'));
  const root = process.argv.includes('--root') ? arg('--root', '') : undefined;
  const prof = process.argv.includes('--prof');
  // e.g. --node-args "--max-semi-space-size=8": flags for the server processes (workers inherit them).
  const extraArgs = arg('--node-args', '').split(' ').filter(Boolean);
  const url = benchDatabaseUrl();
  const schema = freshSchemaName();
  await ensureDatabase(url);
  const pool = openPool(url, schema, 2);
  const dir = mkdtempSync(join(tmpdir(), 'larder-prof-'));
  const storage = { kind: 'postgres' as const, url, schema };
  let server: ServerProcess | undefined;
  try {
    // Seeding runs on a server of its own, so a profile holds only the measured load.
    const seeder = await startServer(storage, 1, { root });
    const seeded = await seed(seeder.url, 10_000, pool).finally(() => seeder.stop());
    await addIndexesWithCli(storage, BENCH_CLASS, ['score', 'category']);
    await pool.query(`ANALYZE "${BENCH_CLASS}"`);
    server = await startServer(storage, workers, { root, nodeArgs: [...extraArgs, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])] });
    const serverPids = [server.pid, ...server.workerPids()];
    const list = workloads({ benchIds: seeded.benchIds, ownerIds: seeded.ownerIds, hotId: seeded.benchIds[0] });
    for (let r = 0; r < rounds; r++) {
      for (const key of only) {
        const w = list.find((x) => x.key === key);
        if (!w) throw new Error(`no workload ${key}`);
        await runHttpLoad(server.url, w.larder, { durationSec: 2 }, 32);
        const pgPids = await backendPids(pool);
        const before = cpuOf([...serverPids, ...pgPids, process.pid]);
        const res = await runHttpLoad(server.url, w.larder, { durationSec: secs }, 32);
        const after = cpuOf([...serverPids, ...pgPids, process.pid]);
        const pick = (pids: readonly number[]) => cpuUsed(before, after, pids);
        const ops = res.ok || 1;
        const us = (s: number) => Math.round((s * 1e6) / ops).toString().padStart(5);
        const rss = serverPids.map((p) => Math.round(rssMb(p) ?? 0)).join('+');
        console.log(
          `${key.padEnd(8)} ${String(Math.round(res.perSec * w.objectsPerOp)).padStart(6)}/s  CPU us/op: larder ${us(pick(serverPids))}  postgres ${us(pick(pgPids))}  load-gen ${us(pick([process.pid]))}  non-2xx ${res.non2xx}  rss ${rss} MB`,
        );
      }
    }
  } finally {
    await server?.stop();
    await pool.end();
    await dropSchema(url, schema);
  }
  if (prof) console.log(`profiles in ${dir}\n${topFunctions(dir, 40).join('\n')}`);
}

void main();
