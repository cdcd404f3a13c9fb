/**
 * Database pool use for /metrics: read from the pools when Prometheus scrapes, so nothing is
 * counted per statement. A process may hold several databases (tests, several apps); their
 * pools are summed, and a pool that was closed or collected drops out.
 */
import type { Database } from './database.ts';
import { gauge } from '../metrics/registry.ts';

const pools = new Set<WeakRef<Database>>();

/** Adds a database's pool to the gauge (no-op for engines without a pool). */
export function watchPool(db: Database): void {
  if (db.poolStats) pools.add(new WeakRef(db));
}

gauge({
  name: 'larder_db_pool_connections',
  help: 'PostgreSQL pool connections: size (LARDER_POOL_SIZE), total open, idle, and requests waiting',
  labelNames: ['state'] as const,
  collect() {
    const sum = { size: 0, total: 0, idle: 0, waiting: 0 };
    for (const ref of pools) {
      const stats = ref.deref()?.poolStats?.();
      if (!stats) {
        pools.delete(ref);
        continue;
      }
      sum.size += stats.size;
      sum.total += stats.total;
      sum.idle += stats.idle;
      sum.waiting += stats.waiting;
    }
    this.reset();
    for (const [state, v] of Object.entries(sum)) this.set({ state }, v);
  },
});
