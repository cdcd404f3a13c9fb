import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from '../sql/fragment.ts';
import type { Sql } from '../sql/fragment.ts';
import { openPglite } from './pglite.ts';
import { prepared } from './prepared-statements.ts';

/** The driver error under a translated one. */
function causeOf(err: unknown): Record<string, unknown> {
  const cause = (err as { cause?: unknown }).cause ?? err;
  return { ...(cause as Record<string, unknown>), message: (cause as Error).message };
}

// The embedded engine's thread decodes PostgreSQL's answers itself (pglite-wire.mjs) instead of
// through PGlite's execProtocol + parseResults. Its rows and errors must be exactly PGlite's own:
// the reference here is PGlite's query() in this thread, with the worker's parsers.
test('PGlite wire decoding: rows and errors equal PGlite query() for every column type, NULLs, duplicate names, empty results, large answers', async () => {
  const db = await openPglite({ schema: 'larder', statementTimeoutMs: 10_000, sliceMs: 0 });
  const ref = await PGlite.create({ parsers: { 20: (v) => Number(v), 1700: (v) => Number(v), 1184: (v) => v } });
  try {
    const setup = `CREATE TABLE t (id text PRIMARY KEY, at timestamptz, tags text[], doc jsonb, n numeric, big bigint, b bytea, ok boolean, f float8, d date, ts timestamp, nums int4[])`;
    await db.exec(setup);
    await ref.exec(`CREATE SCHEMA larder; SET search_path = larder, public; SET TimeZone = 'UTC'; ${setup}`);
    const rows: [string, unknown, unknown][] = [
      ['a', 1.5, 'ünï "cödé" \\ 😀'],
      ['b', null, null],
      ['c', -12345678901234, ''],
    ];
    for (const [id, n, s] of rows) {
      const insert = sql`INSERT INTO t (id, at, tags, doc, n, big, b, ok, f, d, ts, nums)
        VALUES (${id}, ${'2026-01-02T03:04:05.678Z'}::timestamptz, ${s === null ? null : ['x', s]}::text[], ${s === null ? null : JSON.stringify({ s, k: [1, { z: null }] })}::jsonb,
          ${n}::numeric, ${n === null ? null : 9007199254740}::bigint, decode(${s === null ? null : '00ff10'}::text, 'hex'), ${s !== null}, ${n}::float8, '2026-11-27', '2026-11-27 10:00:00', '{1,NULL,3}')`;
      await db.query(insert);
      const { text, values } = insert.toQuery();
      await ref.query(text, values);
    }
    const statements: Sql[] = [
      sql`SELECT * FROM t ORDER BY id`,
      sql`SELECT id, doc::text AS doc_text, octet_length(id) AS len FROM t WHERE id = ${'a'}`,
      sql`SELECT id AS x, n AS x FROM t ORDER BY id`,
      sql`SELECT * FROM t WHERE id = ${'none'}`,
      sql`UPDATE t SET n = n + 1 WHERE id = ${'a'} RETURNING n`,
      sql`UPDATE t SET n = 0 WHERE id = ${'none'}`,
      // Past the reused buffer's first size, then past the size it keeps (pglite-wire.mjs).
      sql`SELECT repeat(${'é'}, 100000) AS long`,
      sql`SELECT repeat(${'x'}, 5000000) AS huge`,
      sql`SELECT id FROM t WHERE id = ${'b'}`,
    ];
    for (const s of statements) {
      const { text, values } = s.toQuery();
      const want = (await ref.query(text, values)).rows;
      assert.deepEqual(await db.query(s), want, text);
      if (values.length > 0) assert.deepEqual(await db.query(prepared(s)), (await ref.query(text, values)).rows, `prepared: ${text}`);
    }
    // Errors: the same fields (SQLSTATE, constraint, detail...) as PGlite's DatabaseError.
    for (const s of [sql`INSERT INTO t (id) VALUES (${'a'})`, sql`SELECT 1 / ${0}::int AS x`, sql`SELECT nope FROM t`]) {
      const { text, values } = s.toQuery();
      const want = await ref.query(text, values).then(() => assert.fail('no error'), (e: unknown) => e as Record<string, unknown>);
      const got = await db.query(s).then(() => assert.fail('no error'), causeOf);
      for (const key of ['message', 'code', 'severity', 'detail', 'constraint', 'table', 'schema', 'position', 'routine', 'name', 'length']) {
        assert.equal(got[key], want[key], `${key} of ${text}`);
      }
    }
    // The engine is usable after an error, inside a transaction too.
    assert.deepEqual(await db.transaction((tx) => tx.query(sql`SELECT count(*)::int AS c FROM t`)), [{ c: 3 }]);
  } finally {
    await db.close();
    await ref.close();
  }
});

test('PGlite wire decoding: a notification committed by a statement with parameters reaches the listener', async () => {
  const db = await openPglite({ schema: 'larder', statementTimeoutMs: 10_000, sliceMs: 0 });
  try {
    const got: string[] = [];
    assert.ok(db.listen);
    await db.listen('Larder_Test', (p) => got.push(p), () => {});
    await db.query(sql`SELECT pg_notify(${'larder_test'}, ${'one'})`);
    await db.transaction(async (tx) => {
      await tx.query(sql`SELECT pg_notify(${'larder_test'}, ${'two'})`);
    });
    await db.query(sql`SELECT pg_notify(${'other'}, ${'not ours'})`);
    await db.exec(`NOTIFY larder_test, 'three'`);
    for (let i = 0; i < 50 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(got, ['one', 'two', 'three']);
  } finally {
    await db.close();
  }
});
