import type pg from 'pg';

/** One unit of direct work: one or more statements on the pool, awaited in order. */
export type DirectOp = (pool: pg.Pool) => Promise<void>;

/** What one direct run measured. */
export interface DirectRunResult {
  /** Completed operations per second of wall time. */
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  failed: number;
  /** The first failure's message, so a broken statement is visible instead of a low number. */
  firstError?: string;
  durationSec: number;
}

/** The q-quantile of sorted values (nearest rank). */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/**
 * Runs `op` from `concurrency` loops for `durationSec` seconds against a pg.Pool of the same
 * size: the same closed-loop shape as autocannon's connections, without HTTP. Operations still
 * in flight at the deadline are awaited but not counted, like autocannon's.
 */
export async function runDirectLoad(pool: pg.Pool, op: DirectOp, durationSec: number, concurrency: number): Promise<DirectRunResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let failed = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const deadline = start + durationSec * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await op(pool);
      } catch (err) {
        failed++;
        firstError ??= (err as Error).message;
        continue;
      }
      const t1 = performance.now();
      if (t1 > deadline) break;
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = t1 - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = Math.min(performance.now(), deadline) - start;
  const sorted = latencies.slice(0, count).sort();
  return {
    perSec: count / (elapsed / 1000),
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    ok: count,
    failed,
    firstError,
    durationSec: elapsed / 1000,
  };
}
