import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../errors/api-error.ts';
import { DEFAULT_ACL, MAX_ACL_ENTRIES, parseAcl, permsOf } from './acl.ts';

describe('parseAcl: accepted and normalised', () => {
  const cases: [string, unknown, unknown][] = [
    ['public read/write', { '*': { read: true, write: true } }, { '*': { read: true, write: true } }],
    ['user and role', { u1: { read: true }, 'role:admin': { write: true } }, { u1: { read: true }, 'role:admin': { write: true } }],
    ['explicit false dropped', { '*': { read: true, write: false } }, { '*': { read: true } }],
    ['subject with no grant dropped', { '*': { read: false }, u1: {} }, {}],
    ['empty ACL (master key only)', {}, {}],
    ['role name with space and dash', { 'role:ops team-1': { read: true } }, { 'role:ops team-1': { read: true } }],
    ['imported non-hex user id', { fchpZwSuGG: { read: true } }, { fchpZwSuGG: { read: true } }],
  ];
  for (const [name, input, out] of cases) test(name, () => assert.deepEqual(parseAcl(input), out));
});

describe('parseAcl: rejected with 123', () => {
  const many: Record<string, unknown> = {};
  for (let i = 0; i <= MAX_ACL_ENTRIES; i++) many[`u${i}`] = { read: true };
  const cases: [string, unknown][] = [
    ['null', null],
    ['array', [{ '*': { read: true } }]],
    ['string', 'public'],
    ['value not an object', { '*': true }],
    ['value array', { '*': [true] }],
    ['non-boolean flag', { '*': { read: 'true' } }],
    ['unknown flag', { '*': { read: true, delete: true } }],
    ['empty key', { '': { read: true } }],
    ['role: with empty name', { 'role:': { read: true } }],
    ['bad characters in key', { 'u$1': { read: true } }],
    ['__proto__ key', JSON.parse('{"__proto__": {"read": true}}')],
    ['constructor key', { constructor: { read: true } }],
    ['key too long', { ['u'.repeat(200)]: { read: true } }],
    ['too many entries', many],
    ['an __op value', { __op: 'Delete' }],
  ];
  for (const [name, input] of cases) {
    test(name, () => {
      assert.throws(() => parseAcl(input), (err: unknown) => err instanceof ApiError && err.code === 123);
    });
  }
});

describe('permsOf', () => {
  test('splits read and write subjects, sorted', () => {
    const acl = parseAcl({ u2: { read: true, write: true }, '*': { read: true }, 'role:a': { write: true } });
    assert.deepEqual(permsOf(acl), { rperm: ['*', 'u2'], wperm: ['role:a', 'u2'] });
  });
  test('default ACL is public read and write', () => {
    assert.deepEqual(DEFAULT_ACL, { '*': { read: true, write: true } });
    assert.deepEqual(permsOf(DEFAULT_ACL), { rperm: ['*'], wperm: ['*'] });
  });
  test('default ACL cannot be mutated by a careless caller', () => {
    assert.throws(() => {
      (DEFAULT_ACL as Record<string, unknown>).u1 = { read: true };
    });
  });
  test('empty ACL gives no permissions', () => assert.deepEqual(permsOf({}), { rperm: [], wperm: [] }));
});
