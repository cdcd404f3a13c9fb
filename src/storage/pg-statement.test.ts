import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { PgStatement, type RowsCallback } from './pg-statement.ts';

// PostgreSQL-only code: runs when a server is configured (npm test finds the local one; CI sets it).
const url = process.env.TEST_DATABASE_URL;
const skip = !url && 'needs TEST_DATABASE_URL';

interface CallbackQueryable {
  query(statement: PgStatement, callback: RowsCallback): void;
}

function run(client: pg.Client | pg.Pool, name: string | undefined, text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    (client as unknown as CallbackQueryable).query(new PgStatement(name, text, values), (err, rows) => (err ? reject(err) : resolve(rows ?? [])));
  });
}

/** Counts the RowDescription messages a client's connection receives. */
function describedCount(client: pg.Client): () => number {
  let n = 0;
  (client as unknown as { connection: { on(e: string, f: () => void): void } }).connection.on('rowDescription', () => n++);
  return () => n;
}

const TEXT = `SELECT $1::text AS id, $2::int8 AS n, $3::jsonb AS doc, now() AS at, NULL::text AS none, ARRAY['a','b'] AS arr, true AS yes`;
const VALUES = ['x1', 42, JSON.stringify({ a: [1, 'two'], b: null })];

test('a statement answers the rows pg\'s Query answers, and a named one is described once per connection', { skip }, async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rowDescriptions = describedCount(client);
    const expected = (await client.query({ text: TEXT, values: VALUES })).rows;
    assert.equal(rowDescriptions(), 1);
    const unnamed = await run(client, undefined, TEXT, VALUES);
    assert.deepEqual(Object.keys(unnamed[0]), Object.keys(expected[0]));
    assert.deepEqual({ ...unnamed[0], at: 0 }, { ...expected[0], at: 0 });
    assert.equal(rowDescriptions(), 2);
    const name = `larder_test_stmt_${process.pid}`;
    for (let i = 0; i < 3; i++) {
      const rows = await run(client, name, TEXT, VALUES);
      assert.deepEqual({ ...rows[0], at: 0 }, { ...expected[0], at: 0 });
      assert.deepEqual(Object.keys(rows[0]), Object.keys(expected[0]));
    }
    // Described on its first run only; the later runs go without Describe (no RowDescription).
    assert.equal(rowDescriptions(), 3);
    // Many rows, and none.
    const many = await run(client, `${name}_many`, 'SELECT g AS i, g::text AS t FROM generate_series(1, $1::int) g', [500]);
    assert.equal(many.length, 500);
    assert.deepEqual(many[499], { i: 500, t: '500' });
    assert.deepEqual(await run(client, `${name}_many`, 'SELECT g AS i, g::text AS t FROM generate_series(1, $1::int) g', [0]), []);
    // pg's own statements on the same connection still work.
    assert.equal((await client.query('SELECT 1 AS one')).rows[0].one, 1);
  } finally {
    await client.end();
  }
});

test('errors: the server\'s error comes back once, and the connection stays usable', { skip }, async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const name = `larder_test_err_${process.pid}`;
    // An error while executing a named statement; it stays prepared and runs again.
    await assert.rejects(run(client, name, 'SELECT 1 / $1::int AS q', [0]), (e: Error & { code?: string }) => e.code === '22012');
    assert.deepEqual(await run(client, name, 'SELECT 1 / $1::int AS q', [1]), [{ q: 1 }]);
    await assert.rejects(run(client, name, 'SELECT 1 / $1::int AS q', [0]), (e: Error & { code?: string }) => e.code === '22012');
    assert.deepEqual(await run(client, name, 'SELECT 1 / $1::int AS q', [1]), [{ q: 1 }]);
    // A statement that does not parse: refused, and its name is not taken.
    await assert.rejects(run(client, `${name}_bad`, 'SELEC $1::int', [1]), (e: Error & { code?: string }) => e.code === '42601');
    await assert.rejects(run(client, `${name}_bad`, 'SELEC $1::int', [1]), (e: Error & { code?: string }) => e.code === '42601');
    // The same name for another text is refused before anything is sent.
    await assert.rejects(run(client, name, 'SELECT 2 AS q', [1]), /must be unique/);
    // A parameter pg cannot encode: refused; the statement parsed with it is still usable.
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await assert.rejects(run(client, `${name}_enc`, 'SELECT $1::jsonb AS j', [circular]), /circular/i);
    assert.deepEqual(await run(client, `${name}_enc`, 'SELECT $1::jsonb AS j', [JSON.stringify({ k: 1 })]), [{ j: { k: 1 } }]);
    assert.deepEqual(await run(client, undefined, 'SELECT $1::int AS v', [7]), [{ v: 7 }]);
  } finally {
    await client.end();
  }
});

test('through a pool: rows come back, and a connection whose statement failed is not reused', { skip }, async () => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    const rows = await Promise.all(Array.from({ length: 20 }, (_, i) => run(pool, 'larder_test_pool', 'SELECT $1::int * 2 AS d', [i])));
    assert.deepEqual(rows.map((r) => r[0].d), Array.from({ length: 20 }, (_, i) => i * 2));
    await assert.rejects(run(pool, 'larder_test_pool', 'SELECT $1::int * 2 AS d', ['x']), (e: Error & { code?: string }) => e.code === '22P02');
    assert.deepEqual(await run(pool, 'larder_test_pool', 'SELECT $1::int * 2 AS d', [5]), [{ d: 10 }]);
  } finally {
    await pool.end();
  }
});
