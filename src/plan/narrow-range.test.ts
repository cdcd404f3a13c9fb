import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWhere } from '../query/parse-where.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { narrowRange, rangeOf, rangeShare, type NumberColumnStats } from './narrow-range.ts';

const schema: ClassSchema = { name: 'Bench', fields: { n: { type: 'Number' }, score: { type: 'Number' }, s: { type: 'String' } } };
const ON_N = 'CREATE INDEX _lx_x_f_n ON larder."Bench" USING btree ((((data ->> \'n\'::text))::numeric) NULLS FIRST, "objectId")';
const ON_S = 'CREATE INDEX _lx_x_f_s ON larder."Bench" USING btree (((data ->> \'s\'::text)) COLLATE "C" NULLS FIRST, "objectId")';

/** n uniform in [0, 10,000): 100 equal buckets, no common values, no nulls. */
const UNIFORM: NumberColumnStats = { bounds: Array.from({ length: 101 }, (_, i) => i * 100), common: [], commonFreqs: [], nullFrac: 0 };
const table = (stats: NumberColumnStats = UNIFORM) => ({ numberStats: new Map([[ON_N, stats]]) });
const narrow = (where: unknown, order: string | undefined = '-score', t = table()) => narrowRange(parseWhere(where), order, schema, t);

test('rangeOf: the top-level bounds of the field, the tightest of each side', () => {
  assert.deepEqual(rangeOf(parseWhere({ n: { $gte: 10, $lt: 110 } }), 'n'), { lo: 10, hi: 110 });
  assert.deepEqual(rangeOf(parseWhere({ $and: [{ n: { $gt: 5 } }, { n: { $gte: 7, $lte: 90 } }, { s: 'x' }] }), 'n'), { lo: 7, hi: 90 });
  assert.deepEqual(rangeOf(parseWhere({ n: { $lt: 3 } }), 'n'), { lo: undefined, hi: 3 });
});

test('rangeOf: nothing to tell when the field is also compared otherwise, under $or, or not at all', () => {
  assert.equal(rangeOf(parseWhere({ n: { $gte: 10, $lt: 110, $ne: 50 } }), 'n'), undefined);
  assert.equal(rangeOf(parseWhere({ n: 5 }), 'n'), undefined);
  assert.equal(rangeOf(parseWhere({ $or: [{ n: { $lt: 5 } }, { n: { $gt: 9000 } }] }), 'n'), undefined);
  assert.equal(rangeOf(parseWhere({ s: 'x' }), 'n'), undefined);
  assert.equal(rangeOf(parseWhere({ n: { $gte: 'a' } }), 'n'), undefined);
});

test('rangeShare: interpolated in the histogram, common values and nulls counted apart', () => {
  assert.ok(Math.abs((rangeShare({ lo: 1000, hi: 1100 }, UNIFORM) as number) - 0.01) < 1e-9);
  assert.ok(Math.abs((rangeShare({ lo: 1050, hi: 1150 }, UNIFORM) as number) - 0.01) < 1e-9);
  assert.equal(rangeShare({ lo: 0 }, UNIFORM), 1);
  assert.equal(rangeShare({ hi: -5 }, UNIFORM), 0);
  // Half the rows hold 7 (a common value), a tenth are null: a narrow window around 7 is wide.
  const skewed: NumberColumnStats = { ...UNIFORM, common: [7], commonFreqs: [0.5], nullFrac: 0.1 };
  assert.ok(Math.abs((rangeShare({ lo: 0, hi: 10 }, skewed) as number) - (0.5 + 0.4 * 0.001)) < 1e-9);
  assert.equal(rangeShare({ lo: 0, hi: 10 }, { ...UNIFORM, bounds: [] }), undefined);
});

test('narrowRange: the peer bench range (a window of 100 of 10,000) is narrow', () => {
  assert.equal(narrow({ n: { $gte: 4000, $lt: 4100 } }), true);
  assert.equal(narrow({ n: { $gte: 4000, $lt: 4100 }, s: 'x' }, undefined), true);
});

test('narrowRange: a wide range, an unbounded one, or no statistics is not narrow', () => {
  assert.equal(narrow({ n: { $gte: 0, $lt: 2500 } }), false);
  assert.equal(narrow({ n: { $gte: 0 } }), false);
  assert.equal(narrow({ n: { $gte: 4000, $lt: 4100 } }, '-score', { numberStats: new Map() }), false);
  assert.equal(narrow({ n: { $gte: 4000, $lt: 4100 } }, '-score', table({ ...UNIFORM, bounds: [] })), false);
});

test('narrowRange: other conditions on the field, an order by the field itself, or another index are not narrow', () => {
  assert.equal(narrow({ n: { $in: [1, 2] } }), false);
  assert.equal(narrow({ n: 5 }), false);
  assert.equal(narrow({ n: { $gte: 4000, $lt: 4100 } }, 'n'), false);
  assert.equal(narrow({ n: { $gte: 4000, $lt: 4100 } }, '-n,score'), false);
  assert.equal(narrow({ s: 'x' }), false);
  assert.equal(narrow({ s: { $gte: 'a', $lt: 'b' } }, '-score', { numberStats: new Map([[ON_S, UNIFORM]]) }), false);
});

test('narrowRange: a field the schema does not hold as a Number is not narrow', () => {
  const untyped: ClassSchema = { name: 'Bench', fields: {} };
  assert.equal(narrowRange(parseWhere({ n: { $gte: 4000, $lt: 4100 } }), '-score', untyped, table()), false);
});
