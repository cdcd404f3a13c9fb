import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { protocol } from '@electric-sql/pglite';
import { closeStatement, namedStatement, unnamedStatement } from './pglite-messages.mjs';

// The embedded engine's thread writes its protocol messages itself (pglite-messages.mjs); they
// must be byte for byte what PGlite's own serializer writes for the same statement, with the
// values prepared as node-postgres prepares them for the PostgreSQL engine.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };
const S = protocol.serialize;

function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** What PGlite's serializer writes for one run of statement `name` (Parse only with `text`). */
function reference(name: string, text: string | undefined, values: unknown[]): Uint8Array {
  const parts = text === undefined ? [] : [S.parse({ name, text })];
  parts.push(S.bind({ statement: name, values: values.map((v) => prepareValue(v)) as never[] }), S.describe({ type: 'P' }), S.execute({}), S.sync());
  return concat(parts);
}

const VALUES: unknown[][] = [
  [],
  [null, undefined],
  [1, 2.5, -3, 0, 12345678901234n],
  ['ünï "cödé" \\ 😀', ''],
  [['a', 'b"c', null], [1, [2, 3]]],
  [new Date('2026-01-02T03:04:05.678Z'), true, false],
  [Buffer.from([0, 255, 16]), new Uint8Array([1, 2, 3]).subarray(1)],
  [{ a: 1, b: [null, 'x'] }],
  // Larger than the reused buffer's first size.
  ['x'.repeat(70_000), Buffer.alloc(100_000, 7), 'y'.repeat(20_000)],
];

test('PGlite protocol messages: the same bytes as PGlite serializer for every kind of value, named and unnamed, first run or not', () => {
  for (const values of VALUES) {
    assert.deepEqual(namedStatement('larder_1', 'SELECT $1 -- ünï', values), reference('larder_1', 'SELECT $1 -- ünï', values));
    assert.deepEqual(namedStatement('larder_12', undefined, values), reference('larder_12', undefined, values));
    assert.deepEqual(unnamedStatement('SELECT $1', values), reference('', 'SELECT $1', values));
  }
  assert.deepEqual(closeStatement('larder_3'), concat([S.close({ type: 'S', name: 'larder_3' }), S.sync()]));
});

test('PGlite protocol messages: each answer is a copy, not a view of the buffer the next statement reuses', () => {
  const first = namedStatement('larder_1', undefined, ['a']);
  const kept = Uint8Array.from(first);
  namedStatement('larder_2', 'SELECT $1, $2', ['b'.repeat(50_000), 'c']);
  assert.deepEqual(first, kept);
});
