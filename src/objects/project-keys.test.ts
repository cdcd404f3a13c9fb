import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseKeys, projectKeys } from './project-keys.ts';

const obj = { objectId: 'o', createdAt: 'c', updatedAt: 'u', a: 1, b: { x: 1, y: 2 }, p: { __type: 'Pointer', className: 'P', objectId: 'q', name: 'n', age: 3 } };

const cases: [string, string, Record<string, unknown>][] = [
  ['positive list keeps built-ins', 'a', { objectId: 'o', createdAt: 'c', updatedAt: 'u', a: 1 }],
  ['minus excludes', '-a,-b,-p', { objectId: 'o', createdAt: 'c', updatedAt: 'u' }],
  ['minus excludes built-ins', 'a,-createdAt,-updatedAt', { objectId: 'o', a: 1 }],
  ['dot selects a sub-property', 'b.x', { objectId: 'o', createdAt: 'c', updatedAt: 'u', b: { x: 1 } }],
  ['dot into a pointer keeps its identity', 'p.name', { objectId: 'o', createdAt: 'c', updatedAt: 'u', p: { __type: 'Pointer', className: 'P', objectId: 'q', name: 'n' } }],
  ['dotted minus', '-b.y', { ...obj, b: { x: 1 } }],
  ['unknown key is ignored', 'zzz', { objectId: 'o', createdAt: 'c', updatedAt: 'u' }],
];
for (const [name, keys, expected] of cases) test(name, () => assert.deepEqual(projectKeys(obj, parseKeys(keys)), expected));

test('empty keys select everything', () => {
  assert.equal(parseKeys(''), undefined);
  assert.equal(parseKeys(' , '), undefined);
});
