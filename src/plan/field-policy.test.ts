import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { DEFAULT_INVISIBLE_FIELDS, type InvisibleFields } from '../model/invisible-fields.ts';
import { parseWhere } from '../query/parse-where.ts';
import { checkConditionFields, checkOrderFields, droppedFrom, fieldView } from './field-policy.ts';
import type { Access } from './read-access.ts';

function access(master: boolean, invisible: InvisibleFields = DEFAULT_INVISIBLE_FIELDS, userId?: string): Access {
  return {
    master,
    readers: master ? null : ['*'],
    userId,
    invisible,
    permits: async () => true,
    require: async () => {},
    schemaOf: () => undefined,
  };
}

const client = access(false);
const is102 = (e: unknown) => isApiError(e) && e.code === 102;

function refused(className: string, where: unknown, who: Access = client): void {
  assert.throws(() => checkConditionFields(who, className, parseWhere(where)), is102, JSON.stringify(where));
}

test('hidden and invisible fields of _User are refused anywhere in a where', () => {
  refused('_User', { sessionToken: 'x' });
  refused('_User', { password: { $exists: true } });
  refused('_User', { $or: [{ username: 'a' }, { salt: { $regex: '^a' } }] });
  refused('_User', { $and: [{ 'sessionToken.x': 1 }] });
  refused('_User', { email: { $regex: '^a' } });
  refused('_User', { $or: [{ username: 'a' }, { $and: [{ 'mobilePhoneNumber.x': '1' }] }] });
  refused('Post', { author: { $inQuery: { className: '_User', where: { sessionToken: 'x' } } } });
  refused('Post', { author: { $inQuery: { className: '_User', where: { email: 'x' } } } });
  refused('Post', { k: { $select: { query: { className: '_User', where: {} }, key: 'sessionToken' } } });
  refused('Post', { k: { $select: { query: { className: '_User', where: {} }, key: 'email' } } });
  refused('Post', { k: { $dontSelect: { query: { className: '_User', where: {} }, key: 'password' } } });
  refused('Post', { k: { $inQuery: { className: '_User', where: { username: 'a' }, order: '-email' } } });
});

test('ordinary fields, the same names on other classes, and the master key pass', () => {
  for (const [className, where] of [
    ['_User', { username: 'a' }],
    ['Post', { sessionToken: 'x', password: 1, email: 'a' }],
    ['Post', { author: { $inQuery: { className: '_User', where: { username: 'a' } } } }],
    ['Post', { k: { $select: { query: { className: '_User', where: {} }, key: 'username' } } }],
    ['_Role', { $relatedTo: { object: { __type: 'Pointer', className: '_User', objectId: 'a' }, key: 'sessionToken' } }],
  ] as const) {
    assert.doesNotThrow(() => checkConditionFields(client, className, parseWhere(where)), JSON.stringify(where));
  }
  assert.doesNotThrow(() => checkConditionFields(access(true), '_User', parseWhere({ email: 'a', sessionToken: 'x' })));
});

test('operator-chosen invisible fields are refused for clients only', () => {
  const custom = access(false, { ...DEFAULT_INVISIBLE_FIELDS, Post: ['secret'] });
  refused('Post', { $or: [{ a: 1 }, { 'secret.x': 1 }] }, custom);
  refused('Comment', { post: { $inQuery: { className: 'Post', where: { secret: 1 } } } }, custom);
  assert.throws(() => checkOrderFields(custom, 'Post', 'a,-secret'), is102);
  assert.doesNotThrow(() => checkConditionFields(access(true, { Post: ['secret'] }), 'Post', parseWhere({ secret: 1 })));
  // Made visible again by the operator: queryable.
  assert.doesNotThrow(() => checkConditionFields(access(false, { _User: [] }), '_User', parseWhere({ email: 'a' })));
});

test('order on a hidden or invisible field is refused', () => {
  assert.throws(() => checkOrderFields(client, '_User', 'username,-sessionToken'), is102);
  assert.throws(() => checkOrderFields(client, '_User', ' password.x'), is102);
  assert.throws(() => checkOrderFields(client, '_User', '-email'), is102);
  assert.throws(() => checkOrderFields(client, '_User', 'a,mobilePhoneNumber'), is102);
  assert.doesNotThrow(() => checkOrderFields(client, '_User', '-username,createdAt'));
  assert.doesNotThrow(() => checkOrderFields(client, 'Post', 'sessionToken'));
  assert.doesNotThrow(() => checkOrderFields(client, '_User', undefined));
  assert.doesNotThrow(() => checkOrderFields(access(true), '_User', '-email'));
  assert.throws(() => checkOrderFields(client, 'Post', 'a,-b', ['b']), is102);
});

test('views: a user keeps its own contact data; plain classes stay text-encodable', () => {
  const me = access(false, DEFAULT_INVISIBLE_FIELDS, 'me');
  const users = fieldView(me, '_User');
  assert.deepEqual(droppedFrom(users, 'me'), []);
  assert.deepEqual(droppedFrom(users, 'other'), ['email', 'mobilePhoneNumber']);
  assert.equal(users.textEncodable, false);
  assert.equal(fieldView(me, 'Post').textEncodable, true);
  assert.equal(fieldView(access(false, { Post: ['s'] }), 'Post').textEncodable, false);
  assert.deepEqual(droppedFrom(fieldView(access(false, { Post: ['s'] }, 'me'), 'Post'), 'me'), ['s']);
  assert.deepEqual(droppedFrom(fieldView(access(true), '_User'), 'x'), []);
  assert.equal(fieldView(access(true), 'Post').textEncodable, true);
});
