import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../errors/api-error.ts';
import { ITEM } from './compile-where.pg-fixture.ts';
import { indexExpression, indexSpec, jsonPath, resolveField } from './field-expr.ts';

describe('indexExpression', () => {
  const CASES: Array<[field: string, text: string, using: 'btree' | 'gin']> = [
    ['name', `((data->>'name') COLLATE "C")`, 'btree'],
    ['score', `((data->>'score')::numeric)`, 'btree'],
    ['flag', `((data->>'flag')::boolean)`, 'btree'],
    ['when', `((data->'when'->>'iso') COLLATE "C")`, 'btree'],
    ['post', `(data->'post'->>'objectId')`, 'btree'],
    ['tags', `(data->'tags')`, 'gin'],
    ['createdAt', `"createdAt"`, 'btree'],
    ['objectId', `"objectId"`, 'btree'],
  ];
  for (const [field, text, using] of CASES) {
    test(field, () => {
      assert.deepEqual(indexExpression(ITEM, field).toQuery(), { text, values: [] });
      assert.equal(indexSpec(ITEM, field).using, using);
    });
  }
  const REJECTED: Array<[field: string, code: number]> = [
    ['misc', 102], // not in the schema
    ['meta', 102], // Object
    ['meta.city', 102], // dotted
    ['loc', 102], // GeoPoint
    ['likes', 102], // Relation
    ['a-b', 105],
    ['__proto__', 105],
  ];
  for (const [field, code] of REJECTED) {
    test(`rejects ${field}`, () => {
      assert.throws(() => indexExpression(ITEM, field), (err: unknown) => err instanceof ApiError && err.code === code);
    });
  }
});

describe('resolveField', () => {
  test('kinds', () => {
    assert.deepEqual(resolveField(ITEM, ['objectId']), { kind: 'column', name: 'objectId' });
    assert.deepEqual(resolveField(ITEM, ['post']), { kind: 'scalar', name: 'post', type: 'Pointer', className: 'Post' });
    assert.deepEqual(resolveField(ITEM, ['tags']), { kind: 'array', name: 'tags' });
    assert.deepEqual(resolveField(ITEM, ['likes']), { kind: 'relation', name: 'likes', className: 'Post' });
    assert.deepEqual(resolveField(ITEM, ['loc']), { kind: 'json', path: ['loc'], type: 'GeoPoint' });
    assert.deepEqual(resolveField(ITEM, ['name', 'x']), { kind: 'json', path: ['name', 'x'] });
    assert.deepEqual(resolveField(ITEM, ['toString']), { kind: 'json', path: ['toString'] });
  });
});

describe('jsonPath', () => {
  test('safe segments are literals', () => {
    assert.deepEqual(jsonPath(['a', 'b']).toQuery(), { text: `(data->'a'->'b')`, values: [] });
  });
  test('other segments make the path a parameter', () => {
    assert.deepEqual(jsonPath(['a', "it's"]).toQuery(), { text: '(data #> $1::text[])', values: [['a', "it's"]] });
  });
});
