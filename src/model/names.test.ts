import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { checkClassName, isReservedKey, isValidKeyName } from './names.ts';

describe('class names (103)', () => {
  const valid = ['GameScore', 'a', 'A_1', '_User', '_Role', '_File', 'x'.repeat(60)];
  const invalid = ['', '1abc', '_Secret', '_larder_meta', 'a-b', 'a b', 'a;drop', 'é', 'x'.repeat(61), 'a\u0000', '../x'];
  for (const name of valid) test(`accepts ${JSON.stringify(name.slice(0, 20))}`, () => assert.equal(checkClassName(name), name));
  for (const name of invalid) {
    test(`refuses ${JSON.stringify(name.slice(0, 20))}`, () => {
      assert.throws(() => checkClassName(name), (e: unknown) => e instanceof ApiError && e.code === 103);
    });
  }
});

describe('key names', () => {
  const cases: [string, boolean][] = [['score', true], ['a1_', true], ['_a', false], ['1a', false], ['a.b', false], ['a$', false], ['', false], ['x'.repeat(128), true], ['x'.repeat(129), false]];
  for (const [name, ok] of cases) test(`${JSON.stringify(name.slice(0, 20))} -> ${ok}`, () => assert.equal(isValidKeyName(name), ok));
  test('reserved keys are case-insensitive', () => {
    for (const k of ['objectId', 'OBJECTID', 'createdAt', 'updatedat', 'className', 'ACL']) assert.equal(isReservedKey(k), true, k);
    assert.equal(isReservedKey('score'), false);
  });
});
