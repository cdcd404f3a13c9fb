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

describe('one class name rule wherever a class is named', async () => {
  const { decodeValue } = await import('../objects/decode-value.ts');
  const { parseClassName } = await import('../query/parse-subquery.ts');
  const { createClassOf } = await import('../http/batch/run-batch.ts');
  const names = ['GameScore', '_User', 'x'.repeat(60), 'x'.repeat(61), 'x'.repeat(100), '_Secret', '_larder_meta', 'pg_user', '1abc', 'a-b', ''];
  const accepts = (f: () => unknown): boolean => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  for (const name of names) {
    test(JSON.stringify(name.slice(0, 24)), () => {
      const rule = accepts(() => checkClassName(name));
      // Before: Pointer targets allowed 128 characters and any leading "_", inner queries 63.
      const pointer = { __type: 'Pointer', className: name, objectId: 'abc' };
      assert.equal(accepts(() => decodeValue(pointer, 'p')), rule, 'Pointer target');
      assert.equal(accepts(() => decodeValue({ __type: 'Relation', className: name }, 'r')), rule, 'Relation target');
      assert.equal(accepts(() => parseClassName(name)), rule, 'inner query class');
      if (!name.startsWith('_')) assert.equal(createClassOf({ method: 'POST', path: `/1.1/classes/${name}`, query: {}, body: {} }) === name, rule, 'batch create grouping');
    });
  }
});
