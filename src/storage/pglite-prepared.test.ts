import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from '../sql/fragment.ts';
import { sqlState } from './driver-errors.ts';
import type { Database } from './database.ts';
import { openPglite } from './pglite.ts';
import { prepared } from './prepared-statements.ts';

/** The SQLSTATE under a (possibly translated) driver error. */
function stateOf(err: unknown): string | undefined {
  return sqlState(err) ?? sqlState((err as { cause?: unknown }).cause);
}

async function failure(db: Database, statement: Parameters<Database['query']>[0]): Promise<unknown> {
  try {
    await db.query(statement);
  } catch (err) {
    return err;
  }
  throw new Error('the statement did not fail');
}

// The embedded engine's prepared-statement path (pglite-worker.mjs preparedQuery): one call into
// PGlite per statement, named after its first run. Its answers and errors must be those of
// PGlite's own query(), which every other statement still uses.
test('PGlite prepared statements: same rows as unprepared ones, errors keep their SQLSTATE, a failed first run can be retried', async () => {
  const db = await openPglite({ schema: 'larder', statementTimeoutMs: 10_000, sliceMs: 0 });
  try {
    await db.exec(`CREATE TABLE t (id text PRIMARY KEY, at timestamptz, tags text[], doc jsonb, n numeric)`);
    const insert = (id: string, n: unknown) =>
      prepared(sql`INSERT INTO t (id, at, tags, doc, n) VALUES (${id}, ${'2026-01-02T03:04:05.678Z'}::timestamptz, ${['a', 'b"c']}::text[], ${JSON.stringify({ k: 'v' })}::jsonb, ${n}::numeric) RETURNING id`);
    const select = (id: string) => sql`SELECT id, at, tags, doc, n, doc::text AS doc_text FROM t WHERE id = ${id}`;

    // A first run that fails at Bind (the parameter is not a number) leaves nothing behind.
    const bad = await failure(db, insert('x', 'not a number'));
    assert.equal(stateOf(bad), '22P02');
    assert.deepEqual(await db.query(insert('a', 1.5)), [{ id: 'a' }]);
    assert.deepEqual(await db.query(insert('b', 2)), [{ id: 'b' }]);
    // A unique violation on the prepared statement is reported like any other.
    const dup = await failure(db, insert('a', 3));
    assert.equal(stateOf(dup), '23505');
    assert.equal(String(dup), String(await failure(db, sql`INSERT INTO t (id) VALUES (${'a'})`)));

    for (const id of ['a', 'b', 'missing']) {
      assert.deepEqual(await db.query(prepared(select(id))), await db.query(select(id)));
    }
    const [row] = await db.query<Record<string, unknown>>(prepared(select('a')));
    assert.deepEqual(row, { id: 'a', at: '2026-01-02 03:04:05.678+00', tags: ['a', 'b"c'], doc: { k: 'v' }, n: 1.5, doc_text: '{"k": "v"}' });
    // Inside a transaction too.
    const inTx = await db.transaction((tx) => tx.query(prepared(select('b'))));
    assert.equal(inTx.length, 1);
  } finally {
    await db.close();
  }
});
