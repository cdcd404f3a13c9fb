import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWhere } from '../query/parse-where.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { queryShape, reusableShape, type TableAccessPaths } from './reusable-shape.ts';

const schema: ClassSchema = {
  name: 'Bench',
  fields: {
    n: { type: 'Number' },
    score: { type: 'Number' },
    s: { type: 'String' },
    tags: { type: 'Array' },
    owner: { type: 'Pointer', className: '_User' },
    likes: { type: 'Relation', className: '_User' },
    place: { type: 'GeoPoint' },
  },
};

// The definitions as pg_get_indexdef prints them for a class table with an index on n.
const BUILT_IN = [
  'CREATE UNIQUE INDEX "Bench_pkey" ON larder."Bench" USING btree ("objectId")',
  'CREATE INDEX "_lx_x_createdAt" ON larder."Bench" USING btree ("createdAt")',
  'CREATE INDEX "_lx_x_updatedAt" ON larder."Bench" USING btree ("updatedAt")',
];
const ON_N = 'CREATE INDEX _lx_x_f_n ON larder."Bench" USING btree ((((data ->> \'n\'::text))::numeric) NULLS FIRST, "objectId")';
const ON_SCORE = 'CREATE INDEX _lx_x_f_score ON larder."Bench" USING btree ((((data ->> \'score\'::text))::numeric) NULLS FIRST, "objectId")';
const ON_OWNER = 'CREATE INDEX _lx_x_f_owner ON larder."Bench" USING btree (((data -> \'owner\'::text) ->> \'objectId\'::text) NULLS FIRST, "objectId")';

const publicTable: TableAccessPaths = { indexes: [...BUILT_IN, ON_N], publicShare: 1 };
const ANON = ['*'];

function reusable(where: unknown, order: string | undefined, readers: readonly string[] | null, table: TableAccessPaths = publicTable): boolean {
  return reusableShape(queryShape(parseWhere(where), order, schema), readers, table);
}

const RANGE = { n: { $gte: 10, $lt: 110 } };

test('the peer bench range query is prepared for the anonymous reader and the master key', () => {
  assert.equal(reusable(RANGE, '-score', ANON), true);
  assert.equal(reusable(RANGE, '-score', null), true);
  assert.equal(reusable({ n: 5 }, '-score,n', ANON), true, 'equality, and a second order field that no index leads');
  assert.equal(reusable({ s: { $in: ['a', 'b'] } }, 'score', ANON), true, 'no index on s or score: nothing to choose between');
  assert.equal(reusable({}, undefined, ANON), true, 'all rows in createdAt order: one index');
  assert.equal(reusable({ $or: [{ n: 1 }, { s: 'x' }] }, '-score', ANON), true);
});

test('readers with a user or a role never: their principals are a parameter the generic plan cannot see', () => {
  assert.equal(reusable(RANGE, '-score', ['*', 'u1']), false);
  assert.equal(reusable(RANGE, '-score', ['*', 'u1', 'role:A']), false);
  assert.equal(reusable(RANGE, '-score', ['u1']), false);
});

test('two ways into the table: not prepared (a generic plan could keep the wrong one)', () => {
  const both = { indexes: [...BUILT_IN, ON_N, ON_SCORE], publicShare: 1 };
  assert.equal(reusable(RANGE, '-score', ANON, both), false, 'filter index and order index');
  assert.equal(reusable(RANGE, '-score', null, both), false);
  assert.equal(reusable(RANGE, 'n', ANON, both), true, 'the order is on the filtered field: one index');
  assert.equal(reusable(RANGE, undefined, ANON), false, 'the default order (createdAt) has an index too');
  assert.equal(reusable({ n: 1, 'owner.objectId': 'x' }, '-score', ANON, { indexes: [...BUILT_IN, ON_N, ON_OWNER], publicShare: 1 }), false, 'two filtered fields');
  assert.equal(reusable({ owner: { __type: 'Pointer', className: '_User', objectId: 'x' } }, '-score', ANON, { indexes: [...BUILT_IN, ON_N, ON_OWNER], publicShare: 1 }), true);
  assert.equal(reusable({ objectId: { $in: ['a', 'b'] } }, '-score', ANON), true, 'the primary key alone');
  assert.equal(reusable({ objectId: { $in: ['a', 'b'] } }, '-createdAt', ANON), false, 'the primary key and the order index');
  assert.equal(reusable({ updatedAt: { $gt: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } } }, '-score', ANON), true);
});

test('for the anonymous reader the rperm index is a way in unless the statistics show mostly public rows', () => {
  assert.equal(reusable(RANGE, '-score', ANON, { indexes: [...BUILT_IN, ON_N], publicShare: 0.1 }), false, 'mostly private rows');
  assert.equal(reusable(RANGE, '-score', ANON, { indexes: [...BUILT_IN, ON_N], publicShare: undefined }), false, 'never analyzed');
  assert.equal(reusable(RANGE, '-score', ANON, { indexes: [...BUILT_IN, ON_N], publicShare: 0.6 }), true);
  assert.equal(reusable(RANGE, '-score', null, { indexes: [...BUILT_IN, ON_N], publicShare: 0.1 }), true, 'the master key has no ACL clause');
  assert.equal(reusable({ s: 'x' }, '-score', ANON, { indexes: BUILT_IN, publicShare: 0 }), true, 'the rperm index as the only way in');
});

test('conditions whose plan depends on the value or reads other tables: never', () => {
  assert.equal(reusable({ s: { $regex: '^ab' } }, '-score', ANON), false);
  assert.equal(reusable({ place: { $nearSphere: { __type: 'GeoPoint', latitude: 1, longitude: 2 } } }, undefined, ANON), false);
  assert.equal(reusable({ owner: { $inQuery: { className: '_User', where: {} } } }, '-score', ANON), false);
  assert.equal(reusable({ likes: { __type: 'Pointer', className: '_User', objectId: 'u' } }, '-score', ANON), false, 'a Relation field');
  assert.equal(reusable({ $relatedTo: { object: { __type: 'Pointer', className: 'Post', objectId: 'p' }, key: 'likes' } }, '-score', ANON), false);
  assert.equal(reusable({ n: 1, s: { $regex: 'x' } }, '-score', ANON), false, 'one such condition is enough');
});
