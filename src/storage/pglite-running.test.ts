import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSliced, mayNotify } from './pglite-running.ts';

test('only statements that may notify make listeners reload after a cut', () => {
  assert.equal(mayNotify('SELECT pg_notify($1, $2)'), true);
  assert.equal(mayNotify('NOTIFY larder'), true);
  assert.equal(mayNotify('COMMIT'), true);
  assert.equal(mayNotify(' commit'), true);
  assert.equal(mayNotify('SELECT * FROM "Big" WHERE data->>\'text\' ~ $1'), false);
  assert.equal(mayNotify('BEGIN'), false);
  assert.equal(mayNotify('INSERT INTO "Big" (data) VALUES ($1)'), false);
});

test('schema changes are not cut by the slice; every other query is', () => {
  for (const ddl of ['CREATE TABLE "A" (x int)', '  create index if not exists i on t (x)', 'ALTER TABLE t ADD COLUMN y int', 'DROP TABLE IF EXISTS t']) assert.equal(isSliced(ddl), false, ddl);
  for (const q of ['SELECT 1', 'UPDATE t SET x = 1', 'DELETE FROM t', 'INSERT INTO created (x) VALUES (1)', 'WITH d AS (DELETE FROM t) SELECT 1']) assert.equal(isSliced(q), true, q);
});
