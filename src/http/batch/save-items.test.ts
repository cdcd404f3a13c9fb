import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeItemPath, saveTargetOf } from './batch-path.ts';
import { parseSaveItems, saveOrder } from './save-items.ts';

test('item paths with /1.1, /1 or no prefix reach the same route; query strings are kept', () => {
  for (const p of ['/1.1/classes/Post/abc', '/1/classes/Post/abc', '/classes/Post/abc', 'classes/Post/abc']) {
    assert.deepEqual(normalizeItemPath(p), { path: '/1.1/classes/Post/abc', query: {} }, p);
  }
  assert.deepEqual(normalizeItemPath('/1.1/classes/Post?fetchWhenSave=true'), { path: '/1.1/classes/Post', query: { fetchWhenSave: 'true' } });
  assert.equal(normalizeItemPath('/1.1/'), undefined);
});

test('save targets: classes paths take two segments, special collections one', () => {
  assert.deepEqual(saveTargetOf('/1.1/classes/Post'), { collection: '/1.1/classes/Post' });
  assert.deepEqual(saveTargetOf('/1.1/classes/Post/abc'), { collection: '/1.1/classes/Post', objectId: 'abc' });
  assert.deepEqual(saveTargetOf('/1.1/users/abc'), { collection: '/1.1/users', objectId: 'abc' });
  assert.deepEqual(saveTargetOf('/1.1/users'), { collection: '/1.1/users' });
  assert.equal(saveTargetOf('/1.1/classes/Post/abc/def'), undefined);
  assert.equal(saveTargetOf('/1.1/classes'), undefined);
});

const item = (internalId: string, path: string, children: unknown[] = []) => ({ method: 'POST', path, body: { __internalId: internalId, __children: children } });

test('parse strips the internal keys and keeps fields, params and children', () => {
  const [it] = parseSaveItems({
    requests: [{ method: 'put', path: '/1.1/classes/Post', body: { a: 1, __internalId: 'u1', __children: [{ className: 'C', cid: 'u2', key: 'c' }] }, params: { fetchWhenSave: true }, new: true }],
  });
  assert.equal(it.internalId, 'u1');
  assert.deepEqual(it.body, { a: 1 });
  assert.deepEqual(it.children, [{ className: 'C', cid: 'u2', key: 'c' }]);
  assert.deepEqual(it.query, { fetchWhenSave: true });
  assert.deepEqual(it.target, { collection: '/1.1/classes/Post' });
});

test('the internal id defaults to the objectId of the path; without either the request is refused', () => {
  assert.equal(parseSaveItems({ requests: [{ method: 'PUT', path: '/1.1/classes/Post/abc', body: { a: 1 } }] })[0].internalId, 'abc');
  assert.throws(() => parseSaveItems({ requests: [{ method: 'POST', path: '/1.1/classes/Post', body: {} }] }), { code: 107 });
});

test('malformed bodies and items are refused', () => {
  assert.throws(() => parseSaveItems([]), { code: 107 });
  assert.throws(() => parseSaveItems({ requests: {} }), { code: 107 });
  assert.throws(() => parseSaveItems({ requests: [{ method: 'DELETE', path: '/1.1/classes/P/a', body: {} }] }), { code: 405 });
  assert.throws(() => parseSaveItems({ requests: [{ method: 'PUT', path: '/1.1/classes/P/a/b', body: {} }] }), { code: 404 });
  assert.throws(() => parseSaveItems({ requests: [item('u', '/1.1/classes/P', [{ className: 'C', cid: 'x', key: 'bad key' }])] }), { code: 105 });
  assert.throws(() => parseSaveItems({ requests: [item('u', '/1.1/classes/P', [{ className: '9bad', cid: 'x', key: 'k' }])] }), { code: 103 });
  assert.throws(() => parseSaveItems({ requests: [item('u', '/1.1/classes/P', [{ cid: 'x' }])] }), { code: 107 });
});

test('children are ordered before the objects that point to them; the given order is kept otherwise', () => {
  const items = parseSaveItems({
    requests: [item('p', '/1.1/classes/P', [{ className: 'C', cid: 'c', key: 'child' }]), item('x', '/1.1/classes/X'), item('c', '/1.1/classes/C', [{ className: 'G', cid: 'g', key: 'g' }]), item('g', '/1.1/classes/G')],
  });
  assert.deepEqual(saveOrder(items).map((i) => i.internalId), ['g', 'c', 'p', 'x']);
});

test('a cycle of children is refused', () => {
  const items = parseSaveItems({ requests: [item('a', '/1.1/classes/A', [{ className: 'B', cid: 'b', key: 'b' }]), item('b', '/1.1/classes/B', [{ className: 'A', cid: 'a', key: 'a' }])] });
  assert.throws(() => saveOrder(items), { code: 1, message: /cycle/ });
});
