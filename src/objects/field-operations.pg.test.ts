import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { sql } from '../sql/fragment.ts';
import { applyOnCreate, compileUpdate } from './field-operations.ts';
import { MAX_WRITE_KEYS, parseWriteBody } from './parse-write.ts';
import { SQL_FUNCTIONS, TYPE_MISMATCH_SQLSTATE } from '../storage/sql-functions.ts';

// Runs compiled updates on a real PostgreSQL (PGlite, in memory): the golden tests pin the SQL
// text, these pin what it does.
let db: PGlite;
let seq = 0;

before(async () => {
  db = await PGlite.create('memory://');
  // One statement per query, as the migration runner does (PGlite refuses multi-statement queries).
  for (const statement of SQL_FUNCTIONS) await db.query(statement);
  // Twice: CREATE OR REPLACE makes installation idempotent.
  for (const statement of SQL_FUNCTIONS) await db.query(statement);
  await db.query(`CREATE TABLE t (id text PRIMARY KEY, data jsonb NOT NULL DEFAULT '{}'::jsonb)`);
});

after(async () => {
  await db.close();
});

async function insert(initial: Record<string, unknown>): Promise<string> {
  const id = `o${++seq}`;
  await db.query('INSERT INTO t (id, data) VALUES ($1, $2::jsonb)', [id, JSON.stringify(initial)]);
  return id;
}

async function update(id: string, body: unknown): Promise<unknown> {
  const { data } = compileUpdate(parseWriteBody(body, 'update').ops);
  const q = sql`UPDATE t SET data = ${data} WHERE id = ${id} RETURNING data`.toQuery();
  const res = await db.query<{ data: unknown }>(q.text, q.values);
  return res.rows[0].data;
}

async function run(initial: Record<string, unknown>, body: unknown): Promise<unknown> {
  return update(await insert(initial), body);
}

const ptr = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });

describe('compileUpdate on PGlite', () => {
  const cases: [string, Record<string, unknown>, unknown, unknown][] = [
    ['set merges and keeps other fields', { keep: 1, a: 'old' }, { a: 'new', b: null }, { keep: 1, a: 'new', b: null }],
    ['set an object replaces it whole', { o: { x: 1, y: 2 } }, { o: { z: 3 } }, { o: { z: 3 } }],
    ['Delete removes the field', { a: 1, b: 2 }, { a: { __op: 'Delete' } }, { b: 2 }],
    ['Delete of a missing field is a no-op', { b: 2 }, { a: { __op: 'Delete' } }, { b: 2 }],
    ['Increment an existing number', { n: 10 }, { n: { __op: 'Increment', amount: 5 } }, { n: 15 }],
    ['Increment a missing field', {}, { n: { __op: 'Increment', amount: 5 } }, { n: 5 }],
    ['Increment a null field', { n: null }, { n: { __op: 'Increment', amount: 1 } }, { n: 1 }],
    ['Increment by a fraction (exact decimal)', { n: 0.1 }, { n: { __op: 'Increment', amount: 0.2 } }, { n: 0.3 }],
    ['Decrement', { n: 1 }, { n: { __op: 'Decrement', amount: 3 } }, { n: -2 }],
    ['Add appends duplicates', { t: [1, 2] }, { t: { __op: 'Add', objects: [2, { a: 1 }] } }, { t: [1, 2, 2, { a: 1 }] }],
    ['Add to a missing field', {}, { t: { __op: 'Add', objects: [1] } }, { t: [1] }],
    ['AddUnique skips present elements', { t: [1, 2] }, { t: { __op: 'AddUnique', objects: [2, 3] } }, { t: [1, 2, 3] }],
    ['AddUnique de-duplicates its input', { t: [] }, { t: { __op: 'AddUnique', objects: [5, 5, 6, 5] } }, { t: [5, 6] }],
    ['AddUnique compares objects by content, not key order', { t: [{ a: 1, b: 2 }] }, { t: { __op: 'AddUnique', objects: [{ b: 2, a: 1 }, { a: 1 }] } }, { t: [{ a: 1, b: 2 }, { a: 1 }] }],
    ['AddUnique uses equality, not containment', { t: [[1, 2], { a: 1, b: 2 }] }, { t: { __op: 'AddUnique', objects: [[1], { a: 1 }] } }, { t: [[1, 2], { a: 1, b: 2 }, [1], { a: 1 }] }],
    ['AddUnique with pointers (SDK full JSON normalised)', { p: [ptr('A', '1')] }, { p: { __op: 'AddUnique', objects: [{ ...ptr('A', '1'), name: 'x' }, ptr('A', '2')] } }, { p: [ptr('A', '1'), ptr('A', '2')] }],
    ['AddUnique on a missing field', {}, { t: { __op: 'AddUnique', objects: [1, 1] } }, { t: [1] }],
    ['Remove removes every occurrence', { t: [1, 2, 1, 3, 1] }, { t: { __op: 'Remove', objects: [1, 3] } }, { t: [2] }],
    ['Remove objects inside arrays by content', { t: [{ a: 1, b: [1] }, { a: 2 }, [1]] }, { t: { __op: 'Remove', objects: [{ b: [1], a: 1 }, [1]] } }, { t: [{ a: 2 }] }],
    ['Remove does not remove by containment', { t: [[1, 2], { a: 1, b: 2 }] }, { t: { __op: 'Remove', objects: [[1], { a: 1 }] } }, { t: [[1, 2], { a: 1, b: 2 }] }],
    ['Remove the last element leaves []', { t: [1] }, { t: { __op: 'Remove', objects: [1] } }, { t: [] }],
    ['Remove on a missing field gives []', {}, { t: { __op: 'Remove', objects: [1] } }, { t: [] }],
    ['BitAnd', { f: 6 }, { f: { __op: 'BitAnd', value: 3 } }, { f: 2 }],
    ['BitOr', { f: 4 }, { f: { __op: 'BitOr', value: 1 } }, { f: 5 }],
    ['BitXor', { f: 6 }, { f: { __op: 'BitXor', value: 3 } }, { f: 5 }],
    ['BitAnd on a missing field gives 0', {}, { f: { __op: 'BitAnd', value: 1 } }, { f: 0 }],
    ['BitOr on a missing field gives the value', {}, { f: { __op: 'BitOr', value: 1 } }, { f: 1 }],
    ['BitXor on a missing field gives the value', {}, { f: { __op: 'BitXor', value: 1 } }, { f: 1 }],
    ['BitOr with a negative operand', { f: 1 }, { f: { __op: 'BitOr', value: -2 } }, { f: -1 }],
    ['AddRelation sets the marker', {}, { likes: { __op: 'AddRelation', objects: [ptr('Post', 'p')] } }, { likes: { __type: 'Relation', className: 'Post' } }],
    ['nested set creates missing parents', {}, { 'a.b.c': 1 }, { a: { b: { c: 1 } } }],
    ['nested set keeps siblings', { a: { x: 1, b: { y: 2 } } }, { 'a.b.c': 1 }, { a: { x: 1, b: { y: 2, c: 1 } } }],
    ['nested set through a null parent', { a: null }, { 'a.b': 1 }, { a: { b: 1 } }],
    ['nested set of an object value', {}, { 'a.b': { c: [1] } }, { a: { b: { c: [1] } } }],
    ['two nested sets under one parent', { a: { z: 0 } }, { 'a.x': 1, 'a.y': 2 }, { a: { z: 0, x: 1, y: 2 } }],
    ['nested delete', { authData: { weixin: { uid: 1 }, qq: { uid: 2 } } }, { 'authData.weixin': { __op: 'Delete' } }, { authData: { qq: { uid: 2 } } }],
    ['nested set of null keeps the key', { a: { b: 1 } }, { 'a.b': null }, { a: { b: null } }],
    ['nested sets and deletes in one patch', { a: { x: 1, y: 2 }, b: { z: 3 } }, { 'a.x': { __op: 'Delete' }, 'a.w': 0, 'b.z': { __op: 'Delete' } }, { a: { y: 2, w: 0 }, b: {} }],
    ['nested delete of a missing path', { a: 1 }, { 'x.y': { __op: 'Delete' } }, { a: 1 }],
    ['nested Increment on an existing value', { stats: { score: 7, k: 1 } }, { 'stats.score': { __op: 'Increment', amount: 3 } }, { stats: { score: 10, k: 1 } }],
    ['nested Increment with missing parents', {}, { 'stats.day.score': { __op: 'Increment', amount: 3 } }, { stats: { day: { score: 3 } } }],
    ['nested Add', { s: { tags: ['a'] } }, { 's.tags': { __op: 'Add', objects: ['b'] } }, { s: { tags: ['a', 'b'] } }],
    ['nested AddUnique and Remove', { s: { u: [1], r: [1, 2, 1] } }, { 's.u': { __op: 'AddUnique', objects: [1, 2] }, 's.r': { __op: 'Remove', objects: [1] } }, { s: { u: [1, 2], r: [2] } }],
    ['nested bit op', { s: { f: 12 } }, { 's.f': { __op: 'BitXor', value: 5 } }, { s: { f: 9 } }],
    ['everything at once', { n: 1, t: [1], gone: true, s: { a: 1 } },
      { n: { __op: 'Increment', amount: 1 }, t: { __op: 'AddUnique', objects: [1, 2] }, gone: { __op: 'Delete' }, 's.b': 2, title: 'x' },
      { n: 2, t: [1, 2], s: { a: 1, b: 2 }, title: 'x' }],
    ['hostile path segments are data, not SQL', {}, { "x.a'); DROP TABLE t; --": 1 }, { x: { "a'); DROP TABLE t; --": 1 } }],
  ];
  for (const [name, initial, body, expected] of cases) {
    test(name, async () => assert.deepEqual(await run(initial, body), expected));
  }

  test('more than 50 computed fields in one update (jsonb_build_object argument limit)', async () => {
    const body: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (let i = 0; i < 120; i++) {
      body[`f${i}`] = { __op: 'Increment', amount: i };
      expected[`f${i}`] = i;
    }
    assert.deepEqual(await run({}, body), expected);
  });

  test('MAX_WRITE_KEYS nested ops in one statement (no deep expression nesting)', async () => {
    const body: Record<string, unknown> = {};
    const inner: Record<string, unknown> = {};
    for (let i = 0; i < MAX_WRITE_KEYS; i++) {
      body[`o.k${i}`] = i;
      inner[`k${i}`] = i;
    }
    assert.deepEqual(await run({}, body), { o: inner });
  });
});

describe('compileUpdate on PGlite: type mismatches raise the dedicated SQLSTATE', () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ['Increment on a string', { n: 'five' }, { n: { __op: 'Increment', amount: 1 } }],
    ['Increment on a numeric string', { n: '5' }, { n: { __op: 'Increment', amount: 1 } }],
    ['BitAnd on a fraction', { f: 1.5 }, { f: { __op: 'BitAnd', value: 1 } }],
    ['Add on an object', { t: { a: 1 } }, { t: { __op: 'Add', objects: [1] } }],
    ['Remove on a string', { t: 'x' }, { t: { __op: 'Remove', objects: ['x'] } }],
    ['AddUnique on a number', { t: 1 }, { t: { __op: 'AddUnique', objects: [1] } }],
    ['dotted set through a number', { a: 5 }, { 'a.b': 1 }],
    ['dotted set through an array', { a: [1] }, { 'a.b': 1 }],
  ];
  for (const [name, initial, body] of cases) {
    test(name, async () => {
      const id = await insert(initial);
      await assert.rejects(update(id, body), (err: unknown) => {
        assert.equal((err as { code?: unknown }).code, TYPE_MISMATCH_SQLSTATE);
        return true;
      });
      const res = await db.query<{ data: unknown }>('SELECT data FROM t WHERE id = $1', [id]);
      assert.deepEqual(res.rows[0].data, initial, 'the failed update changed nothing');
    });
  }
});

describe('atomicity', () => {
  test('50 concurrent Increments lose nothing', async () => {
    const id = await insert({});
    await Promise.all(Array.from({ length: 50 }, () => update(id, { n: { __op: 'Increment', amount: 1 } })));
    const res = await db.query<{ data: unknown }>('SELECT data FROM t WHERE id = $1', [id]);
    assert.deepEqual(res.rows[0].data, { n: 50 });
  });

  test('concurrent mixed ops on one row all apply', async () => {
    const id = await insert({ t: [] });
    await Promise.all(Array.from({ length: 50 }, (_, i) => update(id, {
      n: { __op: 'Decrement', amount: 2 },
      t: { __op: 'AddUnique', objects: [i % 10] },
      [`f${i % 5}`]: { __op: 'BitOr', value: 1 << (i % 3) },
      'nested.count': { __op: 'Increment', amount: 1 },
    })));
    const res = await db.query<{ data: { n: number; t: number[]; nested: unknown; f0: number } }>('SELECT data FROM t WHERE id = $1', [id]);
    const data = res.rows[0].data;
    assert.equal(data.n, -100);
    assert.deepEqual([...data.t].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(data.nested, { count: 50 });
    assert.equal(data.f0, 7);
  });
});

describe('create and update agree on an empty document', () => {
  const bodies: [string, unknown][] = [
    ['Increment', { n: { __op: 'Increment', amount: 3 } }],
    ['Decrement', { n: { __op: 'Decrement', amount: 3 } }],
    ['BitAnd', { f: { __op: 'BitAnd', value: 5 } }],
    ['BitOr', { f: { __op: 'BitOr', value: 5 } }],
    ['BitXor', { f: { __op: 'BitXor', value: 5 } }],
    ['Add', { t: { __op: 'Add', objects: [1, 1] } }],
    ['AddUnique', { t: { __op: 'AddUnique', objects: [1, 1, { a: 1, b: 2 }, { b: 2, a: 1 }] } }],
    ['Remove', { t: { __op: 'Remove', objects: [1] } }],
    ['Delete', { a: { __op: 'Delete' } }],
    ['AddRelation', { r: { __op: 'AddRelation', objects: [ptr('A', '1')] } }],
    ['set', { s: 'x', d: { __type: 'Date', iso: '2020-01-01T00:00:00Z' } }],
  ];
  for (const [name, body] of bodies) {
    test(name, async () => {
      const created = applyOnCreate(parseWriteBody(body, 'create').ops).data;
      assert.deepEqual(await run({}, body), created);
    });
  }
});
