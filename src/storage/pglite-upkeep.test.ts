import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from '../sql/fragment.ts';
import { openPglite } from './pglite.ts';
import { upkeepDue, type UpkeepDone } from './pglite-upkeep.ts';

test('autovacuum rule: ANALYZE past 50 + 10% changed rows, VACUUM past 50 + 20% dead rows', () => {
  const t = (reltuples: number, modsSinceAnalyze: number, deadTuples: number, hasPages = false) => upkeepDue({ table: 'T', reltuples, modsSinceAnalyze, deadTuples, hasPages });
  assert.equal(t(-1, 50, 0), undefined, 'never analyzed counts as empty: 50 is not past 50');
  assert.equal(t(-1, 0, 0, true), 'ANALYZE', 'never analyzed but holds pages (counters lost at a restart)');
  assert.equal(t(0, 0, 0, true), undefined);
  assert.equal(t(-1, 51, 0), 'ANALYZE');
  assert.equal(t(1000, 150, 0), undefined);
  assert.equal(t(1000, 151, 0), 'ANALYZE');
  assert.equal(t(1000, 0, 251), 'VACUUM');
  assert.equal(t(1000, 151, 251), 'VACUUM (ANALYZE)');
  assert.equal(t(1000, 151, 250), 'ANALYZE');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the idle embedded engine analyzes grown tables and vacuums dead rows; a request meanwhile answers', async () => {
  const done: UpkeepDone[] = [];
  let during: Promise<unknown[]> | undefined;
  const db = await openPglite({
    schema: 'upkeep_test',
    statementTimeoutMs: 0,
    sliceMs: 0,
    onUpkeep: (d) => {
      done.push(d);
      // A request arriving while the round runs: it waits at most this table's upkeep.
      during ??= db.query(sql`SELECT count(*)::int AS n FROM "Small"`);
    },
  });
  try {
    await db.exec('CREATE TABLE "Counter" (id int PRIMARY KEY, n int); CREATE TABLE "Small" (id int PRIMARY KEY)');
    await db.query(sql`INSERT INTO "Counter" SELECT g, 0 FROM generate_series(1, 5000) g`);
    await db.query(sql`INSERT INTO "Small" SELECT g FROM generate_series(1, 100) g`);
    for (let i = 0; i < 5; i++) await db.query(sql`UPDATE "Counter" SET n = n + 1 WHERE id <= 2000`);
    const before = await db.query<{ reltuples: number }>(sql`SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'Counter'`);
    assert.equal(before[0].reltuples, -1, 'no statistics before the engine is idle');
    // The request sent after Counter's upkeep stops the round; Small's waits for the next idle
    // checkpoint, 10 s after the first (pglite-checkpoint.ts).
    for (let i = 0; i < 250 && done.length < 2; i++) await sleep(100);
    assert.deepEqual(done.map((d) => [d.table, d.what]), [['Counter', 'VACUUM (ANALYZE)'], ['Small', 'ANALYZE']], 'most changed first');
    assert.ok(during, 'a request was sent during the round');
    assert.deepEqual(await during, [{ n: 100 }]);
    const [c] = await db.query<{ reltuples: number; dead: number; vacuumed: boolean; analyzed: boolean }>(sql`
      SELECT c.reltuples::float8 AS reltuples, s.n_dead_tup AS dead, s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analyzed
      FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'Counter'`);
    assert.deepEqual(c, { reltuples: 5000, dead: 0, vacuumed: true, analyzed: true });
    const stats = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'Counter'`);
    assert.equal(stats[0].n, 2, 'column statistics of id and n');
  } finally {
    await db.close();
  }
});

test('a class loaded before a restart is analyzed by the restarted engine (its counters start at zero)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-upkeep-'));
  try {
    const first = await openPglite({ dataDir, schema: 'upkeep_test', statementTimeoutMs: 0, sliceMs: 0 });
    await first.exec('CREATE TABLE "Loaded" (id int PRIMARY KEY)');
    await first.query(sql`INSERT INTO "Loaded" SELECT g FROM generate_series(1, 3000) g`);
    await first.close(); // before any idle upkeep
    const done: UpkeepDone[] = [];
    const db = await openPglite({ dataDir, schema: 'upkeep_test', statementTimeoutMs: 0, sliceMs: 0, onUpkeep: (d) => done.push(d) });
    try {
      assert.deepEqual(await db.query(sql`SELECT count(*)::int AS n FROM "Loaded"`), [{ n: 3000 }]);
      for (let i = 0; i < 50 && done.length < 1; i++) await sleep(100);
      assert.deepEqual(done.map((d) => [d.table, d.what]), [['Loaded', 'ANALYZE']]);
      const [c] = await db.query<{ reltuples: number }>(sql`SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'Loaded'`);
      assert.equal(c.reltuples, 3000);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
