import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readAcl, readsRow } from './acl.ts';

test('readsRow is readAcl in memory: a shared principal reads, the master key reads all', () => {
  assert.equal(readsRow(['*'], ['*', 'u1']), true);
  assert.equal(readsRow(['u1', 'role:A'], ['*', 'role:A']), true);
  assert.equal(readsRow(['u1'], ['*', 'u2']), false);
  assert.equal(readsRow([], ['*']), false, 'no read permission: nobody but the master key');
  assert.equal(readsRow([], null), true);
  assert.equal(readAcl(['*', 'u1']).parts.join('?'), 'rperm && ?::text[]', 'the SQL form of the same rule');
});

test('the anonymous reader\'s principal is a constant in the text (plans see its statistics); any other set is a parameter', () => {
  assert.deepEqual(readAcl(['*']).toQuery(), { text: "rperm && '{*}'::text[]", values: [] });
  assert.deepEqual(readAcl(['*', 'u1']).toQuery(), { text: 'rperm && $1::text[]', values: [['*', 'u1']] });
  assert.deepEqual(readAcl(['u1']).toQuery(), { text: 'rperm && $1::text[]', values: [['u1']] });
  assert.deepEqual(readAcl(null).toQuery(), { text: 'TRUE', values: [] });
});
