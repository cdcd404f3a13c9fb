import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../errors/api-error.ts';
import { sql } from '../../sql/fragment.ts';
import { compileOrder } from './compile-order.ts';
import { parseOrder } from '../parse-order.ts';
import { ITEM } from './compile-where.pg-fixture.ts';

const GENERIC = (v: string, dir: string) =>
  `(CASE WHEN ${v} IS NULL OR jsonb_typeof(${v}) = 'null' THEN 1 WHEN jsonb_typeof(${v}) = 'number' THEN 2 WHEN jsonb_typeof(${v}) = 'string' THEN 3 WHEN (${v}->>'__type') = 'Date' THEN 9 WHEN jsonb_typeof(${v}) = 'object' THEN 4 WHEN jsonb_typeof(${v}) = 'array' THEN 5 ELSE 8 END) ${dir}, ` +
  `(CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END) ${dir}, ` +
  `((CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END) COLLATE "C") ${dir}, ` +
  `((CASE WHEN (${v}->>'__type') = 'Date' THEN ${v}->>'iso' END) COLLATE "C") ${dir}, ` +
  `${v} ${dir}`;

const GOLDEN: Array<[name: string, order: string | undefined, text: string]> = [
  ['no order: objectId', undefined, '"objectId" ASC'],
  ['empty order', '', '"objectId" ASC'],
  ['String ascending, byte-wise, missing first', 'name', `((data->>'name') COLLATE "C") ASC NULLS FIRST, "objectId" ASC`],
  ['Number descending, missing last, tie-breaker descending too', '-score', `((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC`],
  ['Date by iso', 'when', `((data->'when'->>'iso') COLLATE "C") ASC NULLS FIRST, "objectId" ASC`],
  ['Boolean', 'flag', `((data->>'flag')::boolean) ASC NULLS FIRST, "objectId" ASC`],
  ['reserved columns', '-createdAt,updatedAt', `"createdAt" DESC, "updatedAt" ASC, "objectId" ASC`],
  ['descending reserved column', '-createdAt', `"createdAt" DESC, "objectId" DESC`],
  ['objectId byte-wise, no extra tie-breaker', '-objectId', `("objectId" COLLATE "C") DESC`],
  ['spaces and empty items are ignored', ' name , ,-score ', `((data->>'name') COLLATE "C") ASC NULLS FIRST, ((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC`],
  ['untyped field by type bucket', 'misc', `${GENERIC("(data->'misc')", 'ASC')}, "objectId" ASC`],
  ['nested key', '-meta.city', `${GENERIC("(data->'meta'->'city')", 'DESC')}, "objectId" DESC`],
  ['the tie-breaker follows the last key', 'name,-score', `((data->>'name') COLLATE "C") ASC NULLS FIRST, ((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC`],
];

describe('compileOrder golden SQL', () => {
  for (const [name, order, text] of GOLDEN) {
    test(name, () => assert.deepEqual(compileOrder(order, ITEM).toQuery(), { text, values: [] }));
  }
  test('Number fields named as doubles sort by a float8 key; others keep the index expression', () => {
    assert.deepEqual(compileOrder('-score,name', ITEM, undefined, new Set(['score'])).toQuery(), {
      text: `((data->>'score')::float8) DESC NULLS LAST, ((data->>'name') COLLATE "C") ASC NULLS FIRST, "objectId" ASC`,
      values: [],
    });
    // A name that is not a Number field of the schema is never a double key.
    assert.deepEqual(compileOrder('name', ITEM, undefined, new Set(['name'])).toQuery(), { text: `((data->>'name') COLLATE "C") ASC NULLS FIRST, "objectId" ASC`, values: [] });
  });
  test('$nearSphere distance when no order is given', () => {
    const near = sql`(distance ${1})`;
    assert.deepEqual(compileOrder(undefined, ITEM, near).toQuery(), { text: '(distance $1) ASC, "objectId" ASC', values: [1] });
  });
  test('an explicit order wins over the distance', () => {
    const near = sql`(distance ${1})`;
    assert.deepEqual(compileOrder('score', ITEM, near).toQuery().values, []);
  });
});

describe('compileOrder errors', () => {
  const BAD: Array<[string, string, number]> = [
    ['a lone minus', '-', 105],
    ['invalid characters', 'a;drop', 105],
    ['double minus', '--a', 105],
    ['__proto__', '__proto__', 105],
    ['ACL', 'ACL', 105],
    ['too many keys', Array.from({ length: 17 }, (_, i) => `f${i}`).join(','), 102],
  ];
  for (const [name, order, code] of BAD) {
    test(name, () => {
      assert.throws(() => compileOrder(order, ITEM), (err: unknown) => err instanceof ApiError && err.code === code);
    });
  }
});

describe('parseOrder', () => {
  test('keys and directions', () => {
    assert.deepEqual(parseOrder('-a,b'), [{ field: 'a', descending: true }, { field: 'b', descending: false }]);
  });
});
