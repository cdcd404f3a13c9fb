// larder_db_pool_wait_seconds: a statement that finds every pool connection busy is counted and
// its wait timed. PostgreSQL with a pool of one connection held by a slow transaction; the
// embedded engine has no pool, and the same load moves neither metric.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { metricsRegistry } from '../../src/metrics/registry.ts';
import { sql } from '../../src/sql/fragment.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { engines } from './harness/engines.ts';

async function sample(name: string): Promise<number> {
  const text = await metricsRegistry.metrics();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

for (const engine of engines()) {
  test(`pool waits are counted and timed [${engine}]`, async () => {
    const db = await openDatabase({
      databaseUrl: engine === 'postgres' ? process.env.TEST_DATABASE_URL : undefined,
      schema: `t_${randomBytes(6).toString('hex')}`, poolSize: 1, statementTimeoutMs: 20000, embeddedSliceMs: 0,
    });
    try {
      await db.query(sql`SELECT 1`);
      const before = { count: await sample('larder_db_pool_wait_seconds_count'), sum: await sample('larder_db_pool_wait_seconds_sum'), waits: await sample('larder_db_pool_waits_total') };
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const slow = db.transaction(async (tx) => {
        await tx.query(sql`SELECT 1`);
        await held;
      });
      // Give the transaction its connection, then queue a statement behind it for ~300 ms.
      await new Promise((r) => setTimeout(r, 100));
      const queued = db.query(sql`SELECT 2 AS n`);
      setTimeout(release, 300);
      assert.deepEqual(await queued, [{ n: 2 }]);
      await slow;
      const count = (await sample('larder_db_pool_wait_seconds_count')) - before.count;
      const sum = (await sample('larder_db_pool_wait_seconds_sum')) - before.sum;
      const waits = (await sample('larder_db_pool_waits_total')) - before.waits;
      if (engine === 'postgres') {
        assert.equal(count, 1);
        assert.equal(waits, 1);
        assert.ok(sum >= 0.15 && sum < 10, `waited ${sum} s`);
      } else {
        assert.deepEqual([count, waits], [0, 0], 'no pool on the embedded engine');
      }
    } finally {
      if (db.engine === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS "${db.schema}" CASCADE`);
      await db.close();
    }
  });
}
