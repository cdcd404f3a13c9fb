import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../errors/api-error.ts';
import { decodeValue, fieldTypeOf } from './decode-value.ts';
import { MAX_VALUE_DEPTH } from '../model/value-rules.ts';

function nest(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function fails(code: number, fn: () => unknown, message?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe('decodeValue: accepted values and their stored form', () => {
  const cases: [string, unknown, unknown][] = [
    ['string', 'hi', 'hi'],
    ['number', 1.5, 1.5],
    ['boolean', false, false],
    ['null', null, null],
    ['array of mixed', [1, 'a', null, { b: 2 }], [1, 'a', null, { b: 2 }]],
    ['nested object', { a: { b: [1] } }, { a: { b: [1] } }],
    ['empty key in nested object', { '': 1 }, { '': 1 }],
    ['Date normalised to ms UTC', { __type: 'Date', iso: '2015-06-21T18:02:52.249Z' }, { __type: 'Date', iso: '2015-06-21T18:02:52.249Z' }],
    ['Date without ms', { __type: 'Date', iso: '2015-06-21T18:02:52Z' }, { __type: 'Date', iso: '2015-06-21T18:02:52.000Z' }],
    ['Date with offset', { __type: 'Date', iso: '2015-06-21T20:02:52.249+02:00' }, { __type: 'Date', iso: '2015-06-21T18:02:52.249Z' }],
    ['Date without zone is UTC', { __type: 'Date', iso: '2015-06-21T18:02' }, { __type: 'Date', iso: '2015-06-21T18:02:00.000Z' }],
    ['Date only', { __type: 'Date', iso: '2020-02-29' }, { __type: 'Date', iso: '2020-02-29T00:00:00.000Z' }],
    ['Date with µs truncated', { __type: 'Date', iso: '2015-06-21T18:02:52.249999Z' }, { __type: 'Date', iso: '2015-06-21T18:02:52.249Z' }],
    ['Bytes', { __type: 'Bytes', base64: 'aGVsbG8=' }, { __type: 'Bytes', base64: 'aGVsbG8=' }],
    ['empty Bytes', { __type: 'Bytes', base64: '' }, { __type: 'Bytes', base64: '' }],
    ['Pointer drops extra keys (SDK full JSON)', { __type: 'Pointer', className: 'Post', objectId: 'abc', title: 'x', createdAt: 'y' }, { __type: 'Pointer', className: 'Post', objectId: 'abc' }],
    ['Pointer to built-in class', { __type: 'Pointer', className: '_User', objectId: 'u1' }, { __type: 'Pointer', className: '_User', objectId: 'u1' }],
    ['GeoPoint', { __type: 'GeoPoint', latitude: -90, longitude: 180, x: 1 }, { __type: 'GeoPoint', latitude: -90, longitude: 180 }],
    ['File by id', { __type: 'File', id: 'f1' }, { __type: 'File', id: 'f1' }],
    ['File by objectId', { __type: 'File', objectId: 'f1' }, { __type: 'File', id: 'f1' }],
    ['File as full object', { __type: 'File', objectId: 'f1', name: 'a.png', url: 'http://x', metaData: { size: 1 } }, { __type: 'File', id: 'f1' }],
    ['Relation marker at top level', { __type: 'Relation', className: 'Post' }, { __type: 'Relation', className: 'Post' }],
    ['typed values inside arrays', [{ __type: 'Pointer', className: 'A', objectId: '1', extra: 1 }], [{ __type: 'Pointer', className: 'A', objectId: '1' }]],
    ['nesting at the limit', nest(MAX_VALUE_DEPTH), nest(MAX_VALUE_DEPTH)],
    ['astral characters', '😀', '😀'],
  ];
  for (const [name, input, stored] of cases) {
    test(name, () => assert.deepEqual(decodeValue(input, 'f'), stored));
  }

  test('returns a copy, not the input', () => {
    const input = { a: [1] };
    const out = decodeValue(input, 'f') as { a: number[] };
    out.a.push(2);
    assert.deepEqual(input, { a: [1] });
  });
});

describe('decodeValue: rejected values', () => {
  const cases: [string, unknown, number, RegExp?][] = [
    ['$ in nested key', { a: { $gt: 1 } }, 121],
    ['. in nested key', { 'a.b': 1 }, 121],
    ['__proto__ nested key', JSON.parse('{"__proto__": {"polluted": true}}'), 121, /reserved/],
    ['__op inside a nested object', { a: { __op: 'Increment', amount: 1 } }, 111, /__op/],
    ['unknown __type', { __type: 'Polygon', coordinates: [] }, 111, /reserved/],
    ['Object __type (reserved)', { __type: 'Object', className: 'A', objectId: '1' }, 111],
    ['non-string __type', { __type: 5 }, 111],
    ['too deep', nest(MAX_VALUE_DEPTH + 1), 107, /too deeply/],
    ['hostile depth', nest(10_000), 107, /too deeply/],
    ['NaN', Number.NaN, 111, /finite/],
    ['Infinity in array', [Number.POSITIVE_INFINITY], 111],
    ['NUL in string', 'a\u0000b', 107],
    ['NUL in nested key', { 'a\u0000': 1 }, 107],
    ['lone high surrogate', 'a\uD800', 107],
    ['lone low surrogate', '\uDC00b', 107],
    ['undefined', undefined, 107],
    ['function', () => 1, 107],
    ['bigint', 10n, 107],
    ['class instance', new Date(0), 107],
    ['Date with bad iso', { __type: 'Date', iso: 'yesterday' }, 111, /Date/],
    ['Date Feb 30', { __type: 'Date', iso: '2020-02-30T00:00:00Z' }, 111],
    ['Date Feb 29 in non-leap year', { __type: 'Date', iso: '2019-02-29T00:00:00Z' }, 111],
    ['Date hour 24', { __type: 'Date', iso: '2020-01-01T24:00:00Z' }, 111],
    ['Date iso not a string', { __type: 'Date', iso: 1 }, 111],
    ['Date year pushed past 9999', { __type: 'Date', iso: '9999-12-31T23:00:00-05:00' }, 111],
    ['Bytes with whitespace', { __type: 'Bytes', base64: 'aGVs bG8=' }, 111, /base64/],
    ['Bytes with newline', { __type: 'Bytes', base64: 'aGVs\nbG8=' }, 111],
    ['Bytes bad length', { __type: 'Bytes', base64: 'aGVsbG8' }, 111],
    ['Bytes bad alphabet', { __type: 'Bytes', base64: 'aGVs*G8=' }, 111],
    ['Bytes missing', { __type: 'Bytes' }, 111],
    ['Pointer without objectId', { __type: 'Pointer', className: 'A' }, 106],
    ['Pointer with numeric objectId', { __type: 'Pointer', className: 'A', objectId: 1 }, 106],
    ['Pointer with bad className', { __type: 'Pointer', className: 'a b', objectId: '1' }, 106],
    ['Pointer with empty objectId', { __type: 'Pointer', className: 'A', objectId: '' }, 106],
    ['GeoPoint latitude > 90', { __type: 'GeoPoint', latitude: 90.1, longitude: 0 }, 302],
    ['GeoPoint longitude < -180', { __type: 'GeoPoint', latitude: 0, longitude: -180.5 }, 302],
    ['GeoPoint string coordinates', { __type: 'GeoPoint', latitude: '1', longitude: 2 }, 302],
    ['GeoPoint NaN', { __type: 'GeoPoint', latitude: Number.NaN, longitude: 2 }, 302],
    ['File without id', { __type: 'File', url: 'http://x' }, 111, /File/],
    ['File with numeric id', { __type: 'File', id: 5 }, 111],
    ['Relation without className', { __type: 'Relation' }, 128],
    ['Relation inside an array', [{ __type: 'Relation', className: 'A' }], 111, /top-level/],
    ['Relation inside an object', { r: { __type: 'Relation', className: 'A' } }, 111],
  ];
  for (const [name, input, code, message] of cases) {
    test(name, () => fails(code, () => decodeValue(input, 'f'), message));
  }

  test('Relation is refused where the caller says the value is nested', () => {
    fails(111, () => decodeValue({ __type: 'Relation', className: 'A' }, 'a.b', true));
  });

  test('error messages name the field', () => {
    fails(121, () => decodeValue({ $x: 1 }, 'profile'), /'profile'/);
  });

  test('__proto__ cannot pollute Object.prototype', () => {
    assert.throws(() => decodeValue(JSON.parse('{"a":{"__proto__":{"polluted":1}}}'), 'f'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('fieldTypeOf', () => {
  const cases: [string, unknown, unknown][] = [
    ['null locks nothing', null, undefined],
    ['string', 's', { type: 'String' }],
    ['number', 0, { type: 'Number' }],
    ['boolean', true, { type: 'Boolean' }],
    ['array', [], { type: 'Array' }],
    ['object', { a: 1 }, { type: 'Object' }],
    ['Date', { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' }, { type: 'Date' }],
    ['Bytes', { __type: 'Bytes', base64: '' }, { type: 'Bytes' }],
    ['GeoPoint', { __type: 'GeoPoint', latitude: 0, longitude: 0 }, { type: 'GeoPoint' }],
    ['File', { __type: 'File', id: 'f' }, { type: 'File' }],
    ['Pointer with class', { __type: 'Pointer', className: 'Post', objectId: '1' }, { type: 'Pointer', className: 'Post' }],
    ['Relation with class', { __type: 'Relation', className: '_User' }, { type: 'Relation', className: '_User' }],
  ];
  for (const [name, stored, type] of cases) {
    test(name, () => assert.deepEqual(fieldTypeOf(stored), type));
  }
});
