import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { applyOnCreate, changedKeys, compileUpdate, dedupeJson, typesOf } from './field-operations.ts';
import { parseWriteBody } from './parse-write.ts';
import type { WriteMode, WriteOp } from '../model/write-ops.ts';

const ptr = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
const parse = (body: unknown, mode: WriteMode = 'update'): readonly WriteOp[] => parseWriteBody(body, mode).ops;

describe('applyOnCreate', () => {
  const cases: [string, unknown, Record<string, unknown>][] = [
    ['plain values', { a: 1, b: 'x', c: null }, { a: 1, b: 'x', c: null }],
    ['Increment on missing gives the amount', { n: { __op: 'Increment', amount: 5 } }, { n: 5 }],
    ['Decrement on missing gives minus the amount', { n: { __op: 'Decrement', amount: 5 } }, { n: -5 }],
    ['BitAnd on missing gives 0', { f: { __op: 'BitAnd', value: 1 } }, { f: 0 }],
    ['BitOr on missing gives the value', { f: { __op: 'BitOr', value: 1 } }, { f: 1 }],
    ['BitXor on missing gives the value', { f: { __op: 'BitXor', value: 6 } }, { f: 6 }],
    ['Add keeps duplicates', { t: { __op: 'Add', objects: [1, 2, 2] } }, { t: [1, 2, 2] }],
    ['AddUnique de-duplicates (jsonb equality, key order ignored)', { t: { __op: 'AddUnique', objects: [1, { a: 1, b: 2 }, 1, { b: 2, a: 1 }] } }, { t: [1, { a: 1, b: 2 }] }],
    ['Remove gives []', { t: { __op: 'Remove', objects: [1] } }, { t: [] }],
    ['Delete leaves the field absent', { a: { __op: 'Delete' }, b: 1 }, { b: 1 }],
    ['AddRelation stores the marker', { likes: { __op: 'AddRelation', objects: [ptr('Post', 'p1')] } }, { likes: { __type: 'Relation', className: 'Post' } }],
    ['RemoveRelation stores the marker too', { likes: { __op: 'RemoveRelation', objects: [ptr('Post', 'p1')] } }, { likes: { __type: 'Relation', className: 'Post' } }],
  ];
  for (const [name, body, data] of cases) {
    test(name, () => assert.deepEqual(applyOnCreate(parse(body, 'create')).data, data));
  }

  test('AddRelation rows are returned; removals on create are nothing to do', () => {
    const { relations } = applyOnCreate(parse({
      likes: { __op: 'Batch', ops: [{ __op: 'AddRelation', objects: [ptr('Post', 'p1'), ptr('Post', 'p2')] }, { __op: 'RemoveRelation', objects: [ptr('Post', 'p3')] }] },
      plain: 1,
    }, 'create'));
    assert.deepEqual(relations, [{ action: 'add', key: 'likes', targetClass: 'Post', targetIds: ['p1', 'p2'] }]);
  });

  test('Add copies the op objects (the document does not alias the op)', () => {
    const ops = parse({ t: { __op: 'Add', objects: [1] } }, 'create');
    const { data } = applyOnCreate(ops);
    (data.t as unknown[]).push(2);
    assert.deepEqual(applyOnCreate(ops).data, { t: [1] });
  });

  test('nested paths create their parents', () => {
    const ops: WriteOp[] = [{ kind: 'increment', path: ['s', 'a', 'b'], amount: 1 }, { kind: 'set', path: ['s', 'c'], value: 2 }];
    assert.deepEqual(applyOnCreate(ops).data, { s: { a: { b: 1 }, c: 2 } });
  });
});

describe('dedupeJson', () => {
  test('keeps first occurrences and skips existing elements', () => {
    assert.deepEqual(dedupeJson([3, 1, 3, [1], [1], 'a'], [1]), [3, [1], 'a']);
  });
  test('arrays are compared in order, objects by content', () => {
    assert.deepEqual(dedupeJson([[1, 2], [2, 1], { x: [1] }, { x: [1] }]), [[1, 2], [2, 1], { x: [1] }]);
  });
});

describe('typesOf and changedKeys', () => {
  test('types implied by each op', () => {
    const ops = parse({
      s: 'x', nul: null, n: { __op: 'Increment', amount: 1 }, b: { __op: 'BitOr', value: 1 },
      arr: { __op: 'AddUnique', objects: [1] }, gone: { __op: 'Delete' },
      rel: { __op: 'AddRelation', objects: [ptr('_User', 'u')] }, p: ptr('Post', '1'),
      'obj.deep': 1, 'obj2.x': { __op: 'Delete' },
    });
    assert.deepEqual(typesOf(ops), {
      s: { type: 'String' }, n: { type: 'Number' }, b: { type: 'Number' }, arr: { type: 'Array' },
      rel: { type: 'Relation', className: '_User' }, p: { type: 'Pointer', className: 'Post' }, obj: { type: 'Object' },
    });
  });
  test('changedKeys lists top-level keys once, in body order', () => {
    assert.deepEqual(changedKeys(parse({ b: 1, 'a.x': 1, 'a.y': 2, c: { __op: 'Delete' } })), ['b', 'a', 'c']);
  });
});

describe('compileUpdate: golden SQL', () => {
  const cases: [string, unknown, string, unknown[]][] = [
    ['no ops leaves data as is', {}, 'data', []],
    ['top-level sets merge as one jsonb parameter', { a: 1, b: { c: [true] } },
      '(data || $1::jsonb)', ['{"a":1,"b":{"c":[true]}}']],
    ['top-level deletes are one text[] parameter', { a: { __op: 'Delete' }, b: { __op: 'Delete' } },
      '(data - $1::text[])', [['a', 'b']]],
    ['Increment reads the stored value in the same statement', { n: { __op: 'Increment', amount: 2 } },
      "(data || jsonb_build_object('n', to_jsonb(larder_finite(larder_num(data->'n') + $1::numeric))))", [2]],
    ['Decrement', { n: { __op: 'Decrement', amount: 2 } },
      "(data || jsonb_build_object('n', to_jsonb(larder_finite(larder_num(data->'n') + $1::numeric))))", [-2]],
    ['array ops', { a: { __op: 'Add', objects: [1, 1] }, u: { __op: 'AddUnique', objects: [1, 1, 2] }, r: { __op: 'Remove', objects: [3, 3] } },
      "(data || jsonb_build_object('a', (larder_array(data->'a') || $1::jsonb), 'u', larder_add_unique(data->'u', $2::jsonb), 'r', larder_remove(data->'r', $3::jsonb)))",
      ['[1,1]', '[1,2]', '[3]']],
    ['bit ops', { x: { __op: 'BitAnd', value: 6 }, y: { __op: 'BitOr', value: 1 }, z: { __op: 'BitXor', value: 3 } },
      "(data || jsonb_build_object('x', to_jsonb(larder_int(data->'x') & $1::bigint), 'y', to_jsonb(larder_int(data->'y') | $2::bigint), 'z', to_jsonb(larder_int(data->'z') # $3::bigint)))",
      [6, 1, 3]],
    ['mixed top-level ops keep one merge', { title: 'x', n: { __op: 'Increment', amount: 1 }, gone: { __op: 'Delete' } },
      "((data - $1::text[]) || $2::jsonb || jsonb_build_object('n', to_jsonb(larder_finite(larder_num(data->'n') + $3::numeric))))",
      [['gone'], '{"title":"x"}', 1]],
    ['relation ops only set the marker', { likes: { __op: 'AddRelation', objects: [ptr('Post', 'p1')] } },
      '(data || $1::jsonb)', ['{"likes":{"__type":"Relation","className":"Post"}}']],
    ['nested set: one larder_patch call, paths as a JSON array', { 'profile.address.city': 'Paris' },
      'larder_patch(data, $1::jsonb, jsonb_build_array($2::jsonb), $3::jsonb)',
      ['[["profile","address","city"]]', '"Paris"', '[]']],
    ['nested delete', { 'authData.weixin': { __op: 'Delete' } },
      "larder_patch(data, $1::jsonb, '[]'::jsonb, $2::jsonb)", ['[]', '[["authData","weixin"]]']],
    ['nested Increment reads with #>', { 'stats.score': { __op: 'Increment', amount: 1 } },
      'larder_patch(data, $1::jsonb, jsonb_build_array(to_jsonb(larder_finite(larder_num((data #> $2::text[])) + $3::numeric))), $4::jsonb)',
      ['[["stats","score"]]', ['stats', 'score'], 1, '[]']],
    ['top-level and nested together', { a: 1, 'b.c': { __op: 'Add', objects: ['x'] }, 'd.e': { __op: 'Delete' } },
      'larder_patch((data || $1::jsonb), $2::jsonb, jsonb_build_array((larder_array((data #> $3::text[])) || $4::jsonb)), $5::jsonb)',
      ['{"a":1}', '[["b","c"]]', ['b', 'c'], '["x"]', '[["d","e"]]']],
  ];
  for (const [name, body, text, values] of cases) {
    test(name, () => assert.deepEqual(compileUpdate(parse(body)).data.toQuery(), { text, values }));
  }

  test('hostile nested path segments and values only appear as parameters', () => {
    const q = compileUpdate(parse({ "x.a'); DROP TABLE t; --": "'; DROP TABLE t; --" })).data.toQuery();
    assert.equal(q.text, 'larder_patch(data, $1::jsonb, jsonb_build_array($2::jsonb), $3::jsonb)');
    assert.deepEqual(q.values, [JSON.stringify([['x', "a'); DROP TABLE t; --"]]), JSON.stringify("'; DROP TABLE t; --"), '[]']);
  });

  test('many nested values are split over several jsonb_build_array calls (100-argument limit)', () => {
    const body: Record<string, unknown> = {};
    for (let i = 0; i < 250; i++) body[`o.k${i}`] = i;
    const { text, values } = compileUpdate(parse(body)).data.toQuery();
    assert.equal(text.match(/jsonb_build_array\(/g)?.length, 3);
    assert.equal(values.length, 252);
  });

  test('more than 50 computed fields are split over several jsonb_build_object calls', () => {
    const body: Record<string, unknown> = {};
    for (let i = 0; i < 120; i++) body[`f${i}`] = { __op: 'Increment', amount: 1 };
    const { text, values } = compileUpdate(parse(body)).data.toQuery();
    assert.equal(text.match(/jsonb_build_object\(/g)?.length, 3);
    assert.equal(values.length, 120);
  });

  test('relation changes: adds then removes, per field', () => {
    const { relations } = compileUpdate(parse({
      likes: { __op: 'Batch', ops: [{ __op: 'AddRelation', objects: [ptr('Post', 'p1')] }, { __op: 'RemoveRelation', objects: [ptr('Post', 'p2')] }] },
      users: { __op: 'RemoveRelation', objects: [ptr('_User', 'u1')] },
    }));
    assert.deepEqual(relations, [
      { action: 'add', key: 'likes', targetClass: 'Post', targetIds: ['p1'] },
      { action: 'remove', key: 'likes', targetClass: 'Post', targetIds: ['p2'] },
      { action: 'remove', key: 'users', targetClass: '_User', targetIds: ['u1'] },
    ]);
  });
});
