import { test } from 'node:test';
import assert from 'node:assert/strict';
import { thrownCode as apiErrorCode } from '../../../../test/support/thrown-code.ts';
import { canonicalJson, parseSubscribeBody, queryIdOf } from './subscription-query.ts';

test('subscribe body: the JS SDK shape', () => {
  const r = parseSubscribeBody({ query: { className: 'Item', where: { room: 'a' }, keys: 'room,n', returnACL: true }, id: 'abc-123' });
  assert.equal(r.subscriptionId, 'abc-123');
  assert.deepEqual(r.query, { className: 'Item', where: { room: 'a' }, keys: 'room,n', returnACL: true });
  assert.equal(r.sessionToken, undefined);
});

test('subscribe body: Java sends where (or the whole query) as JSON text, and the session in the body', () => {
  const a = parseSubscribeBody({ query: { className: 'Item', where: '{"room":"a"}' }, id: 's1', sessionToken: 'tok' });
  assert.deepEqual(a.query.where, { room: 'a' });
  assert.equal(a.sessionToken, 'tok');
  const b = parseSubscribeBody({ query: '{"className":"Item","where":{"n":{"$gt":1}}}', id: 's1' });
  assert.deepEqual(b.query.where, { n: { $gt: 1 } });
});

test('subscribe body: order, limit, skip and include are accepted and ignored', () => {
  const r = parseSubscribeBody({ query: { className: 'Item', where: {}, order: '-n', limit: 5, skip: 1, include: 'owner' }, id: 's' });
  assert.deepEqual(r.query, { className: 'Item', where: {}, returnACL: false });
});

test('subscribe body: bad input gets its error code', () => {
  const cases: [unknown, number][] = [
    [null, 107],
    [{ query: { className: 'Item' } }, 107],
    [{ query: { className: 'Item' }, id: '' }, 107],
    [{ query: { className: 'Item' }, id: 'x'.repeat(129) }, 107],
    [{ query: { className: 'Item' }, id: 'a b' }, 107],
    [{ query: 'not json', id: 's' }, 107],
    [{ query: { className: 'Item', where: '{' }, id: 's' }, 107],
    [{ query: { className: '1bad' }, id: 's' }, 103],
    [{ query: { className: 'Item', where: { $bogus: 1 } }, id: 's' }, 102],
    [{ query: { className: 'Item', where: 5 }, id: 's' }, 107],
    [{ query: { className: 'Item', keys: 5 }, id: 's' }, 107],
  ];
  for (const [body, code] of cases) assert.equal(apiErrorCode(() => parseSubscribeBody(body)), code, JSON.stringify(body));
});

test('subscribe body: inner queries are refused with a clear error', () => {
  for (const where of [
    { owner: { $inQuery: { className: 'User2', where: {} } } },
    { owner: { $notInQuery: { className: 'User2', where: {} } } },
    { n: { $select: { query: { className: 'B', where: {} }, key: 'n' } } },
    { $or: [{ n: { $dontSelect: { query: { className: 'B', where: {} }, key: 'n' } } }] },
  ]) {
    assert.equal(apiErrorCode(() => parseSubscribeBody({ query: { className: 'Item', where }, id: 's' })), 102, JSON.stringify(where));
  }
});

test('query id: the same subscription id and query give the same id, whatever the key order', () => {
  const a = queryIdOf('s', { className: 'Item', where: { a: 1, b: { $gt: 2, $lt: 5 } }, returnACL: false });
  const b = queryIdOf('s', { className: 'Item', where: { b: { $lt: 5, $gt: 2 }, a: 1 }, returnACL: false });
  assert.equal(a, b);
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, queryIdOf('t', { className: 'Item', where: { a: 1, b: { $gt: 2, $lt: 5 } }, returnACL: false }));
  assert.notEqual(a, queryIdOf('s', { className: 'Item', where: { a: 1, b: { $gt: 2, $lt: 5 } }, returnACL: true }));
  assert.equal(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null }), '{"a":null,"b":[1,{"c":2,"d":1}]}');
});
