// Issue 12 item 4: capacity kept for cheap requests. Class queries (marked heavy) run in a lane
// of a few slots (src/storage/heavy-lane.ts); the rest of the pool (or, on the embedded engine,
// the turn after the running statement) stays free for cheap statements. The assertions are on
// order, not on time: a cheap statement answers while most heavy ones are still waiting.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { isApiError } from '../../src/errors/api-error.ts';
import type { Database } from '../../src/storage/database.ts';
import { heavy } from '../../src/storage/heavy-lane.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { engines } from './harness/engines.ts';

for (const engine of engines()) {
  describe(`heavy statements run in a lane; cheap ones do not queue behind them [${engine}]`, () => {
    const schemas: string[] = [];
    const dbs: Database[] = [];
    async function open(heavySlots: number, statementTimeoutMs: number): Promise<Database> {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      schemas.push(schema);
      const db = await openDatabase({
        databaseUrl: engine === 'postgres' ? process.env.TEST_DATABASE_URL : undefined,
        schema,
        poolSize: 4,
        statementTimeoutMs,
        embeddedSliceMs: 0,
        heavySlots,
      });
      dbs.push(db);
      return db;
    }
    after(async () => {
      for (const db of dbs) {
        if (engine === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS "${db.schema}" CASCADE`);
        await db.close();
      }
    });

    test('16 heavy statements at once: a cheap one answers while most of them still wait', async () => {
      const slots = engine === 'postgres' ? 2 : 1;
      const db = await open(slots, 60_000);
      let done = 0;
      const heavies = Array.from({ length: 16 }, () => db.query(heavy(sql`SELECT pg_sleep(0.3)`)).then(() => done++));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await db.query(sql`SELECT 1 AS one`), [{ one: 1 }]);
      const doneWhenCheapAnswered = done;
      await Promise.all(heavies);
      // Without the lane the cheap statement queues behind every heavy one (pool FIFO on
      // PostgreSQL with 4 connections: behind at least 12; the one embedded connection: all 16).
      assert.ok(doneWhenCheapAnswered <= slots * 2, `the cheap statement answered after ${doneWhenCheapAnswered} of 16 heavy ones`);
      assert.equal(done, 16);
    });

    test('a heavy statement that waits for a slot longer than the statement timeout gets 124', async () => {
      const db = await open(1, 1000);
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => db.query(heavy(sql`SELECT pg_sleep(0.7)`))));
      assert.equal(results[0].status, 'fulfilled', 'the first one ran');
      const timedOut = results.filter((r) => r.status === 'rejected' && isApiError(r.reason) && r.reason.code === 124);
      assert.ok(timedOut.length >= 2, `waiters past the limit got 124: ${JSON.stringify(results.map((r) => r.status))}`);
      const last = results[3];
      assert.ok(last.status === 'rejected' && isApiError(last.reason) && /slots of expensive queries/.test(last.reason.message));
      // The lane is free again afterwards.
      assert.deepEqual(await db.query(heavy(sql`SELECT 2 AS two`)), [{ two: 2 }]);
    });
  });
}
