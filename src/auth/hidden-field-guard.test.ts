import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { parseWhere } from '../query/parse-where.ts';
import { checkHiddenFields, checkHiddenOrder } from './hidden-field-guard.ts';

function refused(className: string, where: unknown): void {
  assert.throws(() => checkHiddenFields(className, parseWhere(where)), (e) => isApiError(e) && e.code === 102, JSON.stringify(where));
}

test('hidden fields of _User are refused anywhere in a where', () => {
  refused('_User', { sessionToken: 'x' });
  refused('_User', { password: { $exists: true } });
  refused('_User', { $or: [{ username: 'a' }, { salt: { $regex: '^a' } }] });
  refused('_User', { $and: [{ 'sessionToken.x': 1 }] });
  refused('Post', { author: { $inQuery: { className: '_User', where: { sessionToken: 'x' } } } });
  refused('Post', { k: { $select: { query: { className: '_User', where: {} }, key: 'sessionToken' } } });
  refused('Post', { k: { $dontSelect: { query: { className: '_User', where: {} }, key: 'password' } } });
});

test('ordinary fields, and the same names on other classes, pass', () => {
  for (const [className, where] of [
    ['_User', { username: 'a', email: { $exists: true } }],
    ['Post', { sessionToken: 'x', password: 1 }],
    ['Post', { author: { $inQuery: { className: '_User', where: { username: 'a' } } } }],
    ['Post', { k: { $select: { query: { className: '_User', where: {} }, key: 'username' } } }],
    ['_Role', { $relatedTo: { object: { __type: 'Pointer', className: '_User', objectId: 'a' }, key: 'sessionToken' } }],
  ] as const) {
    assert.doesNotThrow(() => checkHiddenFields(className, parseWhere(where)), JSON.stringify(where));
  }
});

test('order on a hidden field is refused', () => {
  assert.throws(() => checkHiddenOrder('_User', 'username,-sessionToken'), (e) => isApiError(e) && e.code === 102);
  assert.throws(() => checkHiddenOrder('_User', ' password.x'), (e) => isApiError(e) && e.code === 102);
  assert.doesNotThrow(() => checkHiddenOrder('_User', '-username,createdAt'));
  assert.doesNotThrow(() => checkHiddenOrder('Post', 'sessionToken'));
  assert.doesNotThrow(() => checkHiddenOrder('_User', undefined));
});
