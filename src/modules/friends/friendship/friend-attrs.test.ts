import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../module-api/errors.ts';
import { friendshipAcl, requestAcl } from './friend-acl.ts';
import { attrsOfBody, parseFriendAttrs } from './friend-attrs.ts';

const code = (n: number) => (e: unknown) => e instanceof ApiError && e.code === n;

test('attributes: plain values in stored form with their types', () => {
  const a = parseFriendAttrs({ group: 'g', score: 3, at: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } });
  assert.deepEqual(a.data.group, 'g');
  assert.deepEqual(a.types, { group: { type: 'String' }, score: { type: 'Number' }, at: { type: 'Date' } });
  assert.deepEqual(parseFriendAttrs(undefined).data, {});
});

test('attributes: server fields, ACL, operations and bad names are refused', () => {
  assert.throws(() => parseFriendAttrs({ friendStatus: true }), code(117));
  assert.throws(() => parseFriendAttrs({ followee: 'x' }), code(117));
  assert.throws(() => parseFriendAttrs({ ACL: {} }), code(105));
  assert.throws(() => parseFriendAttrs({ n: { __op: 'Increment', amount: 1 } }), code(107));
  assert.throws(() => parseFriendAttrs({ 'bad name': 1 }), code(105));
  assert.throws(() => parseFriendAttrs([1]), code(107));
});

test('a body is {friendship: attrs} or the attrs themselves', () => {
  assert.deepEqual(attrsOfBody({ friendship: { a: 1 } }).data, { a: 1 });
  assert.deepEqual(attrsOfBody({ a: 1, user: 'skip' }, ['user']).data, { a: 1 });
  assert.deepEqual(attrsOfBody(undefined).data, {});
});

test('row ACLs per friendshipACL', () => {
  assert.deepEqual(friendshipAcl('shared', 'A', 'B'), { A: { read: true, write: true }, B: { read: true } });
  assert.deepEqual(friendshipAcl('public', 'A', 'B'), { '*': { read: true }, A: { read: true, write: true } });
  assert.deepEqual(friendshipAcl('private', 'A', 'B'), { A: { read: true, write: true } });
  // The target of a request always reads it, even under private.
  assert.deepEqual(requestAcl('private', 'A', 'B'), { A: { read: true, write: true }, B: { read: true } });
  assert.deepEqual(requestAcl('public', 'A', 'B'), { '*': { read: true }, A: { read: true, write: true }, B: { read: true } });
});
