/** Golden SQL: the exact text and parameters compileWhere produces for representative wheres. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../errors/api-error.ts';
import type { ClassSchema } from '../../model/class-schema.ts';
import { parseWhere } from '../parse-where.ts';
import { aclClause } from './compile-subquery.ts';
import { type CompileContext, compileWhere } from './compile-where.ts';
import { ITEM, POST } from './compile-where.pg-fixture.ts';

const SCHEMAS: Record<string, ClassSchema> = { Item: ITEM, Post: POST };
const CTX: CompileContext = { schema: ITEM, schemaOf: (name) => SCHEMAS[name], readers: ['*', 'u1'] };
const MASTER: CompileContext = { ...CTX, readers: null };

const ptr = (objectId: string) => ({ __type: 'Pointer', className: 'Post', objectId });
const GENERIC_GT = "EXISTS (SELECT 1 FROM (SELECT (data->'misc') AS x UNION ALL SELECT jsonb_array_elements(CASE WHEN jsonb_typeof((data->'misc')) = 'array' THEN (data->'misc') ELSE '[]'::jsonb END)) AS c WHERE (jsonb_typeof(c.x) = 'number' AND c.x > $1::jsonb))";

const GOLDEN: Array<[name: string, where: unknown, text: string, values: unknown[], ctx?: CompileContext]> = [
  ['empty where', {}, 'TRUE', []],
  ['String equality uses the index expression', { name: 'a' }, `((data->>'name') COLLATE "C") = $1`, ['a']],
  ['Number comparison', { score: { $gte: 1 } }, `((data->>'score')::numeric) >= $1::numeric`, [1]],
  ['Boolean equality', { flag: false }, `((data->>'flag')::boolean) = $1::boolean`, [false]],
  ['Date comparison on the iso string', { when: { $lt: { __type: 'Date', iso: '2020-01-01T00:00:00Z' } } }, `((data->'when'->>'iso') COLLATE "C") < $1`, ['2020-01-01T00:00:00.000Z']],
  ['Pointer equality by objectId', { post: ptr('p1') }, `(data->'post'->>'objectId') = $1`, ['p1']],
  ['String $in is = ANY(text[])', { name: { $in: ['a', 'b'] } }, `((data->>'name') COLLATE "C") = ANY($1::text[])`, [['a', 'b']]],
  ['Number $nin', { score: { $nin: [1, 2] } }, `(((data->>'score')::numeric) = ANY($1::numeric[])) IS NOT TRUE`, [[1, 2]]],
  ['Pointer $in', { post: { $in: [ptr('p1')] } }, `(data->'post'->>'objectId') = ANY($1::text[])`, [['p1']]],
  ['wrong value type never matches', { score: 'x' }, 'FALSE', []],
  ['$ne', { name: { $ne: 'a' } }, `(((data->>'name') COLLATE "C") = $1) IS NOT TRUE`, ['a']],
  ['Array contains', { tags: 'a' }, `(data->'tags') @> $1::jsonb`, ['["a"]']],
  ['Array $all', { tags: { $all: ['a', 1] } }, `(data->'tags') @> $1::jsonb`, ['["a",1]']],
  ['Array $in of strings', { tags: { $in: ['a', 'b'] } }, `(data->'tags') ?| $1::text[]`, [['a', 'b']]],
  ['Array $size', { tags: { $size: 2 } }, `(CASE WHEN jsonb_typeof((data->'tags')) = 'array' THEN jsonb_array_length((data->'tags')) = $1::int ELSE FALSE END)`, [2]],
  ['untyped equality through data containment', { misc: 5 }, '(data @> $1::jsonb OR data @> $2::jsonb)', ['{"misc":5}', '{"misc":[5]}']],
  ['untyped comparison is type-guarded', { misc: { $gt: 5 } }, GENERIC_GT, ['5']],
  ['nested key', { 'meta.city': 'Paris' }, '(data @> $1::jsonb OR data @> $2::jsonb)', ['{"meta":{"city":"Paris"}}', '{"meta":{"city":["Paris"]}}']],
  ['nested key with an unsafe segment uses a path parameter', { 'meta.odd-key': { $gt: 1 } }, "EXISTS (SELECT 1 FROM (SELECT (data #> $1::text[]) AS x UNION ALL SELECT jsonb_array_elements(CASE WHEN jsonb_typeof((data #> $2::text[])) = 'array' THEN (data #> $3::text[]) ELSE '[]'::jsonb END)) AS c WHERE (jsonb_typeof(c.x) = 'number' AND c.x > $4::jsonb))", [['meta', 'odd-key'], ['meta', 'odd-key'], ['meta', 'odd-key'], '1']],
  ['Object field equality is exact', { meta: { a: 1 } }, "EXISTS (SELECT 1 FROM (SELECT (data->'meta') AS x UNION ALL SELECT jsonb_array_elements(CASE WHEN jsonb_typeof((data->'meta')) = 'array' THEN (data->'meta') ELSE '[]'::jsonb END)) AS c WHERE c.x = $1::jsonb)", ['{"a":1}']],
  ['null', { name: null }, `((data->'name') IS NULL OR (data->'name') = 'null'::jsonb OR (data->'name') @> '[null]'::jsonb)`, []],
  ['$exists false', { name: { $exists: false } }, `NOT (data ? 'name')`, []],
  ['nested $exists', { 'meta.city': { $exists: true } }, `((data->'meta'->'city') IS NOT NULL)`, []],
  ['$regex', { name: { $regex: '^\\Qa\\E', $options: 'i' } }, `(data->>'name') ~ $1`, ['(?pi)^a']],
  ['objectId $in', { objectId: { $in: ['a'] } }, `"objectId" = ANY($1::text[])`, [['a']]],
  ['createdAt comparison', { createdAt: { $gte: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } } }, `"createdAt" >= $1::timestamptz`, ['2020-01-01T00:00:00.000Z']],
  ['$or', { $or: [{ name: 'a' }, { score: 1 }] }, `(((data->>'name') COLLATE "C") = $1 OR ((data->>'score')::numeric) = $2::numeric)`, ['a', 1]],
  ['$inQuery applies the inner ACL and limit', { post: { $inQuery: { className: 'Post', where: { title: 'x' } } } }, `(data->'post'->>'objectId') IN (SELECT "objectId" FROM "Post" WHERE ((data->>'title') COLLATE "C") = $1 AND rperm && $2::text[] LIMIT $3::int)`, ['x', ['*', 'u1'], 100]],
  ['$inQuery with the master key', { post: { $inQuery: { className: 'Post', where: {} } } }, `(data->'post'->>'objectId') IN (SELECT "objectId" FROM "Post" WHERE TRUE LIMIT $1::int)`, [100], MASTER],
  ['$inQuery with order and skip', { post: { $inQuery: { className: 'Post', where: {}, order: '-rank', skip: 2, limit: 5 } } }, `(data->'post'->>'objectId') IN (SELECT "objectId" FROM "Post" WHERE TRUE ORDER BY ((data->>'rank')::numeric) DESC NULLS LAST, "objectId" DESC LIMIT $1::int OFFSET $2::bigint)`, [5, 2], MASTER],
  ['$inQuery on an unknown class', { post: { $inQuery: { className: 'Nope', where: {} } } }, 'FALSE', []],
  ['$notInQuery', { post: { $notInQuery: { className: 'Post', where: {} } } }, `((data->'post'->>'objectId') IN (SELECT "objectId" FROM "Post" WHERE rperm && $1::text[] LIMIT $2::int)) IS NOT TRUE`, [['*', 'u1'], 100]],
  ['$select', { name: { $select: { query: { className: 'Post', where: {} }, key: 'title' } } }, `(data->'name') IN (SELECT (data->'title') FROM "Post" WHERE rperm && $1::text[] LIMIT $2::int)`, [['*', 'u1'], 100]],
  ['$relatedTo (the owner must be readable)', { $relatedTo: { object: { __type: 'Pointer', className: 'Item', objectId: 'i1' }, key: 'likes' } }, `(EXISTS (SELECT 1 FROM "Item" WHERE "objectId" = $1 AND rperm && $2::text[]) AND "objectId" IN (SELECT target_id FROM "_larder_relations" WHERE owner_class = $3 AND owner_id = $4 AND key = $5 AND target_class = $6))`, ['i1', ['*', 'u1'], 'Item', 'i1', 'likes', 'Item']],
  ['$relatedTo with the master key', { $relatedTo: { object: { __type: 'Pointer', className: 'Item', objectId: 'i1' }, key: 'likes' } }, `"objectId" IN (SELECT target_id FROM "_larder_relations" WHERE owner_class = $1 AND owner_id = $2 AND key = $3 AND target_class = $4)`, ['Item', 'i1', 'likes', 'Item'], MASTER],
  ['$relatedTo on an owner of an unknown class', { $relatedTo: { object: { __type: 'Pointer', className: 'Nope', objectId: 'i1' }, key: 'likes' } }, 'FALSE', []],
  ['Relation field equality', { likes: ptr('p1') }, `"objectId" IN (SELECT owner_id FROM "_larder_relations" WHERE owner_class = $1 AND key = $2 AND target_class = $3 AND target_id = $4)`, ['Item', 'likes', 'Post', 'p1']],
  ['$within $box', { loc: { $within: { $box: [{ __type: 'GeoPoint', latitude: 0, longitude: 0 }, { __type: 'GeoPoint', latitude: 1, longitude: 1 }] } } }, `(CASE WHEN ((data->'loc')->>'__type') = 'GeoPoint' AND jsonb_typeof((data->'loc')->'latitude') = 'number' AND jsonb_typeof((data->'loc')->'longitude') = 'number' THEN ((data->'loc')->>'latitude')::float8 BETWEEN $1::float8 AND $2::float8 AND ((data->'loc')->>'longitude')::float8 BETWEEN $3::float8 AND $4::float8 ELSE FALSE END)`, [0, 1, 0, 1]],
];

describe('compileWhere golden SQL', () => {
  for (const [name, where, text, values, ctx] of GOLDEN) {
    test(name, () => {
      const compiled = compileWhere(parseWhere(where), ctx ?? CTX);
      assert.deepEqual(compiled.condition.toQuery(), { text, values });
      assert.equal(compiled.nearOrder, undefined);
    });
  }
});

describe('compileWhere $nearSphere', () => {
  test('returns the distance as nearOrder and bounds it in the condition', () => {
    const where = { loc: { $nearSphere: { __type: 'GeoPoint', latitude: 0, longitude: 0 }, $maxDistanceInRadians: 0.5 } };
    const compiled = compileWhere(parseWhere(where), CTX);
    const distance = compiled.nearOrder?.toQuery();
    assert.ok(distance);
    assert.match(distance.text, /^\(CASE WHEN .* THEN 2 \* asin\(least\(1, sqrt\(/);
    assert.deepEqual(distance.values, [0, 1, 0]);
    const condition = compiled.condition.toQuery();
    assert.equal(condition.text, `(${distance.text} <= $4::float8)`);
    assert.deepEqual(condition.values, [0, 1, 0, 0.5]);
  });
  test('on a field that is not a GeoPoint matches nothing and gives no order', () => {
    const compiled = compileWhere(parseWhere({ name: { $nearSphere: { __type: 'GeoPoint', latitude: 0, longitude: 0 } } }), CTX);
    assert.deepEqual(compiled.condition.toQuery(), { text: 'FALSE', values: [] });
    assert.equal(compiled.nearOrder, undefined);
  });
});

describe('compileWhere errors', () => {
  const ERRORS: Array<[string, unknown, RegExp]> = [
    ['comparison on a Relation field', { likes: { $gt: 1 } }, /Relation field likes/],
    ['$regex on a Relation field', { likes: { $regex: 'a' } }, /Relation field likes/],
    ['$inQuery on objectId', { objectId: { $inQuery: { className: 'Post' } } }, /need a Pointer field/],
    ['inner order on an invalid key', { post: { $inQuery: { className: 'Post', order: 'a-b' } } }, /Invalid key name/],
  ];
  for (const [name, where, message] of ERRORS) {
    test(name, () => {
      assert.throws(() => compileWhere(parseWhere(where), CTX), (err: unknown) => err instanceof ApiError && message.test(err.message));
    });
  }
});

describe('aclClause', () => {
  test('readers', () => assert.deepEqual(aclClause(['*', 'u1']).toQuery(), { text: 'rperm && $1::text[]', values: [['*', 'u1']] }));
  test('master key', () => assert.deepEqual(aclClause(null).toQuery(), { text: 'TRUE', values: [] }));
});
