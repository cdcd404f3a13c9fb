import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { defaultRule, effectivePermissions, parsePermissions, ruleAllows, storedPermissions, type PermissionRule } from './class-security.ts';

function refused(v: unknown): void {
  assert.throws(() => parsePermissions(v), (e) => isApiError(e) && e.code === 1 && e.status === 400, JSON.stringify(v));
}

test('the three original forms parse; lists are de-duplicated and default to empty', () => {
  assert.deepEqual(parsePermissions({ find: { '*': true } }), { find: { '*': true } });
  assert.deepEqual(parsePermissions({ get: { onlySignInUsers: true } }), { get: { onlySignInUsers: true } });
  assert.deepEqual(parsePermissions({ delete: { users: ['a', 'a', 'b'] } }), { delete: { users: ['a', 'b'], roles: [] } });
  assert.deepEqual(parsePermissions({ add_fields: { roles: ['Admins'], users: [] } }), { add_fields: { users: [], roles: ['Admins'] } });
  assert.deepEqual(parsePermissions({}), {});
});

test('anything else is refused', () => {
  for (const v of [
    null, [], 'x', { read: { '*': true } }, { find: true }, { find: {} }, { find: { '*': false } },
    { find: { '*': 1 } }, { find: { onlySignInUsers: false } }, { find: { '*': true, users: [] } },
    { find: { users: 'a' } }, { find: { users: [1] } }, { find: { roles: ['bad$name'] } },
    { find: { roles: ['role:admins'] } }, { find: { roles: ['a b'] } }, { find: { roles: ['a-b'] } }, { find: { users: ['not-an-id'] } },
    { find: { users: Array.from({ length: 1001 }, (_, i) => `u${i}`) } }, JSON.parse('{"__proto__":{"*":true}}'),
  ]) refused(v);
});

test('stored values are read leniently: garbage means nothing configured', () => {
  assert.deepEqual(storedPermissions(null), {});
  // A stored rule that does not parse fails closed (master key only), never open.
  assert.deepEqual(storedPermissions({ find: 'garbage' }), { find: { users: [], roles: [] } });
  assert.deepEqual(Object.keys(storedPermissions('garbage')).sort(), ['add_fields', 'create', 'delete', 'find', 'get', 'update']);
  assert.deepEqual(storedPermissions({ find: { '*': true } }), { find: { '*': true } });
});

test('defaults: everyone, except _User find (nobody)', () => {
  assert.deepEqual(defaultRule('Post', 'find'), { '*': true });
  assert.deepEqual(defaultRule('_User', 'find'), { users: [], roles: [] });
  assert.deepEqual(defaultRule('_User', 'get'), { '*': true });
  const eff = effectivePermissions('_User', { create: { onlySignInUsers: true } });
  assert.deepEqual(Object.keys(eff), ['get', 'find', 'create', 'update', 'delete', 'add_fields']);
  assert.deepEqual(eff.create, { onlySignInUsers: true });
  assert.deepEqual(eff.find, { users: [], roles: [] });
});

test('ruleAllows: everyone, signed-in, listed users and roles', () => {
  const anon = { readers: ['*'] };
  const alice = { userId: 'alice', readers: ['*', 'alice', 'role:Editors'] };
  const cases: [PermissionRule, boolean, boolean][] = [
    [{ '*': true }, true, true],
    [{ onlySignInUsers: true }, false, true],
    [{ users: ['alice'], roles: [] }, false, true],
    [{ users: [], roles: ['Editors'] }, false, true],
    [{ users: [], roles: ['Admins'] }, false, false],
    [{ users: [], roles: [] }, false, false],
  ];
  for (const [rule, forAnon, forAlice] of cases) {
    assert.equal(ruleAllows(rule, anon), forAnon, JSON.stringify(rule));
    assert.equal(ruleAllows(rule, alice), forAlice, JSON.stringify(rule));
  }
  // A role name is matched exactly, never as a user id or a prefix.
  assert.equal(ruleAllows({ users: ['role:Editors'], roles: [] }, { readers: ['*', 'role:Editors'] }), false);
  assert.equal(ruleAllows({ users: [], roles: ['Edit'] }, alice), false);
});
