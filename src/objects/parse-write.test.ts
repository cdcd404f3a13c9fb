import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../errors/api-error.ts';
import { MAX_RELATION_OBJECTS, MAX_WRITE_KEYS, parseWriteBody } from './parse-write.ts';
import type { WriteMode, WriteOp } from '../model/write-ops.ts';

const ptr = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });

function ops(body: unknown, mode: WriteMode = 'update'): readonly WriteOp[] {
  return parseWriteBody(body, mode).ops;
}

describe('parseWriteBody: ops', () => {
  const cases: [string, unknown, WriteOp[]][] = [
    ['plain set', { title: 'x' }, [{ kind: 'set', path: ['title'], value: 'x' }]],
    ['set null', { title: null }, [{ kind: 'set', path: ['title'], value: null }]],
    ['set typed value (normalised)', { when: { __type: 'Date', iso: '2020-01-01T00:00:00Z' } }, [{ kind: 'set', path: ['when'], value: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } }]],
    ['Delete', { a: { __op: 'Delete' } }, [{ kind: 'delete', path: ['a'] }]],
    ['Delete with delete:true', { a: { __op: 'Delete', delete: true } }, [{ kind: 'delete', path: ['a'] }]],
    ['Increment', { n: { __op: 'Increment', amount: 2.5 } }, [{ kind: 'increment', path: ['n'], amount: 2.5 }]],
    ['negative Increment', { n: { __op: 'Increment', amount: -3 } }, [{ kind: 'increment', path: ['n'], amount: -3 }]],
    ['Decrement is a negated Increment', { n: { __op: 'Decrement', amount: 4 } }, [{ kind: 'increment', path: ['n'], amount: -4 }]],
    ['Add', { tags: { __op: 'Add', objects: [1, 1, 'a'] } }, [{ kind: 'add', path: ['tags'], objects: [1, 1, 'a'] }]],
    ['AddUnique', { tags: { __op: 'AddUnique', objects: [{ a: 1 }] } }, [{ kind: 'addUnique', path: ['tags'], objects: [{ a: 1 }] }]],
    ['Remove with pointers normalised', { p: { __op: 'Remove', objects: [{ ...ptr('A', '1'), name: 'x' }] } }, [{ kind: 'remove', path: ['p'], objects: [ptr('A', '1')] }]],
    ['BitAnd', { f: { __op: 'BitAnd', value: 6 } }, [{ kind: 'bitAnd', path: ['f'], value: 6 }]],
    ['BitOr', { f: { __op: 'BitOr', value: -1 } }, [{ kind: 'bitOr', path: ['f'], value: -1 }]],
    ['BitXor', { f: { __op: 'BitXor', value: 0 } }, [{ kind: 'bitXor', path: ['f'], value: 0 }]],
    ['AddRelation (ids de-duplicated)', { likes: { __op: 'AddRelation', objects: [ptr('Post', 'p1'), ptr('Post', 'p2'), ptr('Post', 'p1')] } },
      [{ kind: 'relation', path: ['likes'], className: 'Post', add: ['p1', 'p2'], remove: [] }]],
    ['RemoveRelation', { users: { __op: 'RemoveRelation', objects: [ptr('_User', 'u1')] } },
      [{ kind: 'relation', path: ['users'], className: '_User', add: [], remove: ['u1'] }]],
    ['JS SDK Batch of AddRelation + RemoveRelation', { likes: { __op: 'Batch', ops: [
      { __op: 'AddRelation', objects: [ptr('Post', 'p1')] }, { __op: 'RemoveRelation', objects: [ptr('Post', 'p2')] }] } },
    [{ kind: 'relation', path: ['likes'], className: 'Post', add: ['p1'], remove: ['p2'] }]],
    ['dotted set', { 'profile.address.city': 'Paris' }, [{ kind: 'set', path: ['profile', 'address', 'city'], value: 'Paris' }]],
    ['dotted Increment', { 'stats.score': { __op: 'Increment', amount: 1 } }, [{ kind: 'increment', path: ['stats', 'score'], amount: 1 }]],
    ['dotted unlink of authData', { 'authData.weixin': { __op: 'Delete' } }, [{ kind: 'delete', path: ['authData', 'weixin'] }]],
    ['sibling dotted paths do not clash', { 'a.b': 1, 'a.c': 2 }, [{ kind: 'set', path: ['a', 'b'], value: 1 }, { kind: 'set', path: ['a', 'c'], value: 2 }]],
    ['prefix-like names do not clash', { a: 1, ab: 2, 'abc.d': 3 }, [{ kind: 'set', path: ['a'], value: 1 }, { kind: 'set', path: ['ab'], value: 2 }, { kind: 'set', path: ['abc', 'd'], value: 3 }]],
    ['empty body', {}, []],
  ];
  for (const [name, body, expected] of cases) test(name, () => assert.deepEqual(ops(body), expected));

  test('create accepts ops too', () => {
    assert.deepEqual(ops({ n: { __op: 'Increment', amount: 1 } }, 'create'), [{ kind: 'increment', path: ['n'], amount: 1 }]);
  });
});

describe('parseWriteBody: ACL and flags', () => {
  test('ACL is parsed and returned apart from the ops', () => {
    const w = parseWriteBody({ ACL: { '*': { read: true, write: false } }, a: 1 }, 'create');
    assert.deepEqual(w.acl, { '*': { read: true } });
    assert.deepEqual(w.ops, [{ kind: 'set', path: ['a'], value: 1 }]);
  });
  test('no ACL key, no acl', () => assert.equal(parseWriteBody({ a: 1 }, 'update').acl, undefined));
  test('SDK flags are returned, not stored', () => {
    const w = parseWriteBody({ __ignore_hooks: ['beforeSave'], __internalId: 'x', __children: [], __before: 'b', __after: 'c', a: 1 }, 'create');
    assert.deepEqual(w.flags, { __ignore_hooks: ['beforeSave'], __internalId: 'x', __children: [], __before: 'b', __after: 'c' });
    assert.equal(w.ops.length, 1);
  });
  test('a bad ACL is 123', () => {
    assert.throws(() => parseWriteBody({ ACL: 'public' }, 'create'), (e: unknown) => e instanceof ApiError && e.code === 123);
  });
});

describe('parseWriteBody: rejected bodies', () => {
  const tooManyKeys: Record<string, number> = {};
  for (let i = 0; i <= MAX_WRITE_KEYS; i++) tooManyKeys[`k${i}`] = i;
  const pointers = (n: number) => Array.from({ length: n }, (_, i) => ptr('Post', `p${i}`));
  const cases: [string, unknown, number, RegExp?, WriteMode?][] = [
    ['body is an array', [], 107],
    ['body is null', null, 107],
    ['body is a string', '{"a":1}', 107],
    ['name with a dash', { 'my-field': 1 }, 105],
    ['name with a space', { 'a b': 1 }, 105],
    ['name starting with a digit', { '1a': 1 }, 105],
    ['name starting with _', { _private: 1 }, 105],
    ['empty name', { '': 1 }, 105],
    ['unicode name', { 'café': 1 }, 105],
    ['name too long', { ['a'.repeat(129)]: 1 }, 105],
    ['unknown __ key', { __type: 'Date' }, 105, /reserved/],
    ['__proto__ key', JSON.parse('{"__proto__": 1}'), 105, /reserved/],
    ['objectId is reserved', { objectId: 'x' }, 105, /reserved/],
    ['createdAt is reserved', { createdAt: 'x' }, 105, /reserved/],
    ['updatedAt is reserved, any case', { UpdatedAt: 'x' }, 105, /reserved/],
    ['className is reserved', { className: 'x' }, 105, /reserved/],
    ['acl in another case is reserved', { acl: {} }, 105, /reserved/],
    ['dotted key on create', { 'a.b': 1 }, 105, /only allowed when updating/, 'create'],
    ['dotted key with a bad head', { '1a.b': 1 }, 105],
    ['dotted key with $ segment', { 'a.$b': 1 }, 105],
    ['dotted key with empty segment', { 'a..b': 1 }, 105],
    ['dotted key with __proto__ segment', { 'a.__proto__.b': 1 }, 105],
    ['dotted key too deep', { ['a' + '.b'.repeat(40)]: 1 }, 105, /too deep/],
    ['overlap a and a.b', { a: 1, 'a.b': 2 }, 1, /Conflicting/],
    ['overlap a.b and a', { 'a.b': 2, a: { __op: 'Delete' } }, 1, /Conflicting/],
    ['overlap a.b and a.b.c', { 'a.b': 2, 'a.b.c': 3 }, 1, /Conflicting/],
    ['too many keys', tooManyKeys, 1, /Too many keys/],
    ['unknown op', { a: { __op: 'Multiply', amount: 2 } }, 111, /Unknown operation/],
    ['non-string op', { a: { __op: 1 } }, 111, /Unknown operation/],
    ['Increment without amount', { a: { __op: 'Increment' } }, 111],
    ['Increment with string amount', { a: { __op: 'Increment', amount: '1' } }, 111],
    ['Increment with NaN', { a: { __op: 'Increment', amount: Number.NaN } }, 111, /finite/],
    ['Decrement with Infinity', { a: { __op: 'Decrement', amount: Number.POSITIVE_INFINITY } }, 111, /finite/],
    ['Add without objects', { a: { __op: 'Add' } }, 111],
    ['AddUnique with object instead of array', { a: { __op: 'AddUnique', objects: { x: 1 } } }, 111],
    ['Remove with hostile element', { a: { __op: 'Remove', objects: [{ $where: 'x' }] } }, 121],
    ['Add with nested Relation', { a: { __op: 'Add', objects: [{ __type: 'Relation', className: 'A' }] } }, 111],
    ['BitAnd with float', { a: { __op: 'BitAnd', value: 1.5 } }, 111, /integer/],
    ['BitOr beyond 2^53', { a: { __op: 'BitOr', value: 2 ** 60 } }, 111],
    ['BitXor without value', { a: { __op: 'BitXor' } }, 111],
    ['AddRelation with empty objects', { r: { __op: 'AddRelation', objects: [] } }, 128],
    ['AddRelation with too many objects', { r: { __op: 'AddRelation', objects: pointers(MAX_RELATION_OBJECTS + 1) } }, 128],
    ['AddRelation with mixed classes', { r: { __op: 'AddRelation', objects: [ptr('A', '1'), ptr('B', '2')] } }, 128, /same className/],
    ['AddRelation with a non-pointer', { r: { __op: 'AddRelation', objects: ['1'] } }, 128],
    ['AddRelation with a malformed pointer', { r: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'A' }] } }, 106],
    ['RemoveRelation on a dotted path', { 'a.r': { __op: 'RemoveRelation', objects: [ptr('A', '1')] } }, 128, /top-level/],
    ['Batch with other ops', { r: { __op: 'Batch', ops: [{ __op: 'Increment', amount: 1 }] } }, 111, /Batch/],
    ['Batch with mixed relation classes', { r: { __op: 'Batch', ops: [
      { __op: 'AddRelation', objects: [ptr('A', '1')] }, { __op: 'RemoveRelation', objects: [ptr('B', '2')] }] } }, 128],
    ['$ in nested key of a value', { a: { b: { $ne: 1 } } }, 121],
    ['unknown __type in a value', { a: { __type: 'Whatever' } }, 111],
  ];
  for (const [name, body, code, message, mode] of cases) {
    test(name, () => {
      assert.throws(() => parseWriteBody(body, mode ?? 'update'), (err: unknown) => {
        assert.ok(err instanceof ApiError, String(err));
        assert.equal(err.code, code, err.message);
        if (message) assert.match(err.message, message);
        return true;
      });
    });
  }

  test('exactly MAX_RELATION_OBJECTS pointers is fine', () => {
    const [op] = ops({ r: { __op: 'AddRelation', objects: pointers(MAX_RELATION_OBJECTS) } });
    assert.equal(op.kind === 'relation' && op.add.length, MAX_RELATION_OBJECTS);
  });
});
