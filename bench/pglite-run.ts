import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_CLASS, pick } from './bench-data.ts';
import { apiCall, runHttpLoad } from './http-load.ts';
import { MemorySampler } from './memory-sampler.ts';
import { seed } from './seed.ts';
import { startServer, type ServerProcess } from './server-process.ts';
import { fmtInt, fmtMs, type ResultRow } from './verdict.ts';

/** Objects seeded into the PGlite server (through the API: nothing else may open its data dir). */
const PGLITE_SEED = 1000;

/** What the PGlite run needs. */
export interface PgliteRunOptions {
  durationSec: number;
  warmupSec: number;
  connections: number;
  log: (line: string) => void;
  /** Registers the server so an interrupted run still stops it. */
  track: (server: ServerProcess) => void;
}

/**
 * Get by id on the embedded engine: a second server without DATABASE_URL on a temporary data
 * directory (one process, as PGlite allows), seeded through the API. Reported, with no target.
 */
export async function pgliteGetById(opts: PgliteRunOptions): Promise<ResultRow> {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-bench-pglite-'));
  const row: ResultRow = {
    workload: 'get by id, PGlite (1 process)', larder: '-', larderLatency: '-', direct: '-', directLatency: '-', ratio: '-', target: '-', outcome: '-', notes: [],
  };
  let server: ServerProcess | undefined;
  try {
    server = await startServer({ kind: 'pglite', dataDir }, 1, { onSpawn: opts.track });
    const seeded = await seed(server.url, PGLITE_SEED);
    opts.log(`  PGlite: seeded ${seeded.benchIds.length} objects (${seeded.method})`);
    const sample = await apiCall(server.url, 'GET', `/1.1/classes/${BENCH_CLASS}/${seeded.benchIds[0]}`);
    if ((sample as { objectId?: unknown }).objectId !== seeded.benchIds[0]) throw new Error(`get by id answered ${JSON.stringify(sample)}`);
    const spec = { method: 'GET' as const, path: () => `/1.1/classes/${BENCH_CLASS}/${pick(seeded.benchIds)}` };
    if (opts.warmupSec > 0) await runHttpLoad(server.url, spec, { durationSec: opts.warmupSec }, opts.connections);
    const pid = server.pid;
    const sampler = new MemorySampler(() => ({ workers: [pid] }));
    sampler.start();
    const res = await runHttpLoad(server.url, spec, { durationSec: opts.durationSec }, opts.connections);
    sampler.stop();
    row.larder = `${fmtInt(res.perSec)} req/s`;
    row.larderLatency = `${fmtMs(res.p50Ms)} / ${fmtMs(res.p99Ms)}`;
    row.notes.push(`PGlite server peak RSS ${fmtInt(sampler.peak().perProcessMb)} MB during its get-by-id run`);
    if (res.non2xx || res.errors) {
      row.outcome = 'MISSED';
      row.notes.push(`PGlite get by id: ${res.non2xx} non-2xx ${JSON.stringify(res.statuses)}, ${res.errors} socket errors`);
    }
    opts.log(`  PGlite get by id: ${Math.round(res.perSec)}/s (p50 ${res.p50Ms} ms, p99 ${res.p99Ms} ms)`);
  } catch (err) {
    row.outcome = 'ERROR';
    row.notes.push(`PGlite get by id: ${(err as Error).message}`);
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return row;
}
