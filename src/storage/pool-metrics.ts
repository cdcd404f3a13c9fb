/**
 * Database pool use for /metrics: read from the pools when Prometheus scrapes, so nothing is
 * counted per statement. A process may hold several databases (tests, several apps); their
 * pools are summed, and a pool that was closed or collected drops out.
 */
import type { Database, PoolStats } from './database.ts';
import { gauge } from '../metrics/registry.ts';

const pools = new Set<WeakRef<Database>>();

/** Adds a database's pools to the gauges (no-op for engines without a pool). */
export function watchPool(db: Database): void {
  if (db.poolStats) pools.add(new WeakRef(db));
}

/** The sum over the watched databases of one of their pools; forgets the closed and collected. */
function summed(read: (db: Database) => PoolStats | undefined): PoolStats {
  const sum = { size: 0, total: 0, idle: 0, waiting: 0 };
  for (const ref of pools) {
    const db = ref.deref();
    // poolStats answers undefined once the database is closed.
    if (!db?.poolStats?.()) {
      pools.delete(ref);
      continue;
    }
    const stats = read(db);
    if (!stats) continue;
    sum.size += stats.size;
    sum.total += stats.total;
    sum.idle += stats.idle;
    sum.waiting += stats.waiting;
  }
  return sum;
}

/** A gauge of one pool per database, summed, by state (size, total, idle, waiting). */
function poolGauge(name: string, help: string, read: (db: Database) => PoolStats | undefined): void {
  gauge({
    name,
    help,
    labelNames: ['state'] as const,
    collect() {
      const sum = summed(read);
      this.reset();
      for (const [state, v] of Object.entries(sum)) this.set({ state }, v);
    },
  });
}

poolGauge(
  'larder_db_pool_connections',
  'PostgreSQL pool connections: size (LARDER_POOL_SIZE), total open, idle, and requests waiting',
  (db) => db.poolStats?.(),
);

poolGauge(
  'larder_db_narrow_pool_connections',
  'PostgreSQL connections of narrow range reads (random_page_cost 1.1): size (LARDER_HEAVY_QUERY_SLOTS), total open, idle, and requests waiting',
  (db) => db.narrowPoolStats?.(),
);
