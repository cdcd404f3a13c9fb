import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { includeParam, keysParam } from './key-params.ts';

const is105 = (e: unknown) => e instanceof ApiError && e.code === 105 && e.status === 400;

test('keys: plain, nested and excluded paths are accepted', () => {
  assert.deepEqual(keysParam({ keys: 'a, b.c,-d,ACL' }), { include: [['a'], ['b', 'c'], ['ACL']], exclude: [['d']] });
  assert.deepEqual(keysParam({ keys: "nested.it's ok" }), { include: [['nested', "it's ok"]], exclude: [] });
  assert.equal(keysParam({}), undefined);
  assert.equal(keysParam({ keys: '' }), undefined);
});

test('keys: hostile paths are 105', () => {
  for (const keys of ["a'b", '__proto__', '-__proto__', 'a.__proto__', 'a;drop', '$where', 'a.$x', 'a..b', 'k'.repeat(129), 'a\u0000', 'é']) {
    assert.throws(() => keysParam({ keys }), is105, keys);
  }
});

test('keys: too many entries is 102', () => {
  assert.throws(() => keysParam({ keys: Array.from({ length: 501 }, (_, i) => `k${i}`).join(',') }), (e: unknown) => e instanceof ApiError && e.code === 102);
});

test('include: __proto__ is 105; built-in names such as constructor are fields', () => {
  assert.deepEqual(includeParam({ include: 'a, b.c' }), [['a'], ['b', 'c']]);
  for (const include of ['__proto__', 'a.__proto__']) assert.throws(() => includeParam({ include }), is105, include);
  assert.deepEqual(includeParam({ include: 'constructor.toString,valueOf' }), [['constructor', 'toString'], ['valueOf']]);
});
