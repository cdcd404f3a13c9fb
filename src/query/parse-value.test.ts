import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { normalizeJson, parseGeoPoint, parsePointer, parseValue } from './parse-value.ts';

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
