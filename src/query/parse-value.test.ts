import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { normalizeIso, normalizeJson, parseGeoPoint, parsePointer, parseValue } from './parse-value.ts';

describe('normalizeIso', () => {
  const OK: Array<[string, string]> = [
    ['2020-01-02T03:04:05.678Z', '2020-01-02T03:04:05.678Z'],
    ['2020-01-02T03:04:05Z', '2020-01-02T03:04:05.000Z'],
    ['2020-01-02T03:04Z', '2020-01-02T03:04:00.000Z'],
    ['2020-01-02T03:04:05', '2020-01-02T03:04:05.000Z'],
    ['2020-01-02', '2020-01-02T00:00:00.000Z'],
    ['2020-01-02T03:04:05.678+0100', '2020-01-02T02:04:05.678Z'],
    ['2020-01-02 03:04:05.6789Z', '2020-01-02T03:04:05.678Z'],
  ];
  for (const [input, expected] of OK) test(input, () => assert.equal(normalizeIso(input), expected));
  const BAD: unknown[] = ['5', 'yesterday', '2020-02-30T00:00:00Z', '20200102', 1577836800000, null, '+010000-01-01T00:00:00Z'];
  for (const input of BAD) {
    test(`rejects ${JSON.stringify(input)}`, () => {
      assert.throws(() => normalizeIso(input), (err: unknown) => err instanceof ApiError && err.code === 102);
    });
  }
});

describe('normalizeJson', () => {
  test('normalises dates inside arrays and objects', () => {
    assert.deepEqual(normalizeJson([{ d: { __type: 'Date', iso: '2020-01-02T00:00:00Z' } }]), [{ d: { __type: 'Date', iso: '2020-01-02T00:00:00.000Z' } }]);
  });
  test('keeps a __proto__ key as plain data', () => {
    const out = normalizeJson(JSON.parse('{"__proto__": {"polluted": true}}'));
    assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true}}');
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
  test('rejects non-finite numbers', () => {
    assert.throws(() => normalizeJson(Number.NaN), (err: unknown) => err instanceof ApiError && err.code === 102);
  });
});

describe('typed values', () => {
  test('a dereferenced Object is a pointer', () => {
    assert.deepEqual(parseValue({ __type: 'Object', className: 'Post', objectId: 'p', title: 'x' }), { type: 'pointer', className: 'Post', objectId: 'p' });
  });
  test('Bytes', () => {
    assert.deepEqual(parseValue({ __type: 'Bytes', base64: 'AA==' }), { type: 'json', value: { __type: 'Bytes', base64: 'AA==' } });
  });
  test('pointer with an empty objectId is 106', () => {
    assert.throws(() => parsePointer({ __type: 'Pointer', className: 'A', objectId: '' }), (err: unknown) => err instanceof ApiError && err.code === 106);
  });
  test('GeoPoint bounds are inclusive', () => {
    assert.deepEqual(parseGeoPoint({ __type: 'GeoPoint', latitude: -90, longitude: 180 }), { latitude: -90, longitude: 180 });
  });
  test('GeoPoint with string coordinates is 302', () => {
    assert.throws(() => parseGeoPoint({ __type: 'GeoPoint', latitude: '1', longitude: 2 }), (err: unknown) => err instanceof ApiError && err.code === 302);
  });
});
