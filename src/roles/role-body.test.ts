import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { checkRoleName, parseRoleBody } from './role-body.ts';

const userPtr = { __type: 'Pointer', className: '_User', objectId: 'u1' };
const rolePtr = { __type: 'Pointer', className: '_Role', objectId: 'r1' };

test('role names: [A-Za-z0-9_]{1,128}, else 139', () => {
  for (const ok of ['Admins', 'a_1', '9', 'x'.repeat(128)]) assert.equal(checkRoleName(ok), ok);
  for (const bad of [undefined, null, '', 'with space', 'dash-ed', 'é', 'x'.repeat(129), 5, ['a']]) {
    assert.throws(() => checkRoleName(bad), (e) => isApiError(e) && e.code === 139, JSON.stringify(bad));
  }
});

test('membership changes are detected; other fields are free', () => {
  assert.equal(parseRoleBody({ users: { __op: 'AddRelation', objects: [userPtr] } }, 'update').changesMembership, true);
  assert.equal(parseRoleBody({ roles: { __op: 'RemoveRelation', objects: [rolePtr] } }, 'update').changesMembership, true);
  assert.equal(parseRoleBody({ note: 'x', users: { __type: 'Relation', className: '_User' } }, 'update').changesMembership, false);
  assert.equal(parseRoleBody({ other: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Post', objectId: 'p' }] } }, 'update').changesMembership, false);
});

test('users/roles accept only relation ops of the right class (128)', () => {
  for (const body of [
    { users: { __op: 'AddRelation', objects: [rolePtr] } },
    { roles: { __op: 'AddRelation', objects: [userPtr] } },
    { users: [userPtr] },
    { users: null },
    { roles: { __op: 'Delete' } },
    { users: { __type: 'Relation', className: '_Role' } },
    { 'users.x': 1 },
  ]) {
    assert.throws(() => parseRoleBody(body, 'update'), (e) => isApiError(e) && e.code === 128, JSON.stringify(body));
  }
});
