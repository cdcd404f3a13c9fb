import type pg from 'pg';
import { checkCounter, counterOf, counterSum, type CounterCheck } from './counters.ts';
import { runDirectLoad } from './direct-load.ts';
import { runHttpLoad } from './http-load.ts';
import type { MemorySampler } from './memory-sampler.ts';
import { checkWorkload } from './sanity.ts';
import type { WorkloadMeasurement } from './verdict.ts';
import type { Workload, WorkloadData } from './workloads.ts';

/** What measuring one workload needs. */
export interface MeasureContext {
  baseUrl: string;
  pool: pg.Pool;
  data: WorkloadData;
  durationSec: number;
  warmupSec: number;
  connections: number;
  sampler: MemorySampler;
  log: (line: string) => void;
}

/** Requests per connection in the fixed-count hot-row run, whose counter must match exactly. */
const EXACT_PER_CONNECTION = 50;

/** Waits for requests abandoned by a stopped timed run to finish on the server. */
function settle(): Promise<void> {
  return new Promise((r) => setTimeout(r, 1000));
}

async function readCounter(ctx: MeasureContext, w: Workload): Promise<number> {
  return w.key === 'incr-hot' ? counterOf(ctx.pool, ctx.data.hotId) : counterSum(ctx.pool);
}

/**
 * Measures one workload: a sanity request, unmeasured warm-up, the timed HTTP run (with memory
 * sampling), counter checks for increments, then the same work directly with pg.
 */
export async function measureWorkload(w: Workload, ctx: MeasureContext): Promise<WorkloadMeasurement> {
  const m: WorkloadMeasurement = { workload: w };
  try {
    await checkWorkload(w.key, ctx.baseUrl, ctx.pool, ctx.data);
  } catch (err) {
    m.error = `not measured, the endpoint failed its sanity check: ${(err as Error).message}`;
    return m;
  }
  const counted = w.target.kind === 'no-lost-increments';
  const counters: CounterCheck[] = [];
  try {
    ctx.sampler.start();
    if (ctx.warmupSec > 0) await runHttpLoad(ctx.baseUrl, w.larder, { durationSec: ctx.warmupSec }, ctx.connections);
    // A timed run ends with requests in flight that the server still applies: let them land
    // before reading a counter, or they would be counted in the next run.
    if (counted) await settle();
    const before = counted ? await readCounter(ctx, w) : 0;
    m.larder = await runHttpLoad(ctx.baseUrl, w.larder, { durationSec: ctx.durationSec }, ctx.connections);
    if (counted) {
      await settle();
      counters.push(checkCounter(before, await readCounter(ctx, w), m.larder.ok, m.larder.sent, false));
    }
    if (w.key === 'incr-hot') {
      const start = await readCounter(ctx, w);
      const exact = await runHttpLoad(ctx.baseUrl, w.larder, { amount: ctx.connections * EXACT_PER_CONNECTION }, ctx.connections);
      counters.push(checkCounter(start, await readCounter(ctx, w), exact.ok, exact.sent, true));
    }
  } finally {
    ctx.sampler.stop();
  }
  if (counted) m.counters = counters;
  // Direct side: a short warm-up so the pool's connections exist, then the timed run.
  await runDirectLoad(ctx.pool, w.direct, Math.min(0.5, ctx.warmupSec), ctx.connections);
  m.direct = await runDirectLoad(ctx.pool, w.direct, ctx.durationSec, ctx.connections);
  const l = m.larder;
  ctx.log(
    `  ${w.title}: Larder ${Math.round((l?.perSec ?? 0) * w.objectsPerOp)}/s (p50 ${l?.p50Ms} ms, p99 ${l?.p99Ms} ms, non-2xx ${l?.non2xx ?? '-'})` +
      `, direct ${Math.round(m.direct.perSec * w.objectsPerOp)}/s (failed ${m.direct.failed})` +
      (counters.length ? `, counters ${counters.map((c) => `+${c.grew}/${c.acknowledged} ack`).join(', ')}` : ''),
  );
  return m;
}
