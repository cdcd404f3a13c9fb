import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareRow, RecordError } from './prepare-row.ts';

const NOW = '2030-01-01T00:00:00.000Z';

test('a LeanCloud export row becomes a stored row', () => {
  const row = prepareRow('Post', {
    objectId: '5cc6abe117b54d7448151efc', createdAt: '2019-04-29T08:00:00.000Z', updatedAt: { __type: 'Date', iso: '2019-04-29T10:00:00+02:00' },
    ACL: { '*': { read: true, write: false }, 'role:admins': { read: true, write: true } },
    n: 1, d: { __type: 'Date', iso: '2020-01-01T00:00:00Z' }, f: { __type: 'Pointer', className: '_File', objectId: 'abc' }, className: 'Post', __type: 'Object',
  }, NOW);
  assert.equal(row.objectId, '5cc6abe117b54d7448151efc');
  assert.equal(row.updatedAt, '2019-04-29T08:00:00.000Z');
  assert.deepEqual(row.acl, { '*': { read: true }, 'role:admins': { read: true, write: true } });
  assert.deepEqual([row.rperm, row.wperm], [['*', 'role:admins'], ['role:admins']]);
  assert.deepEqual(row.data, { n: 1, d: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' }, f: { __type: 'File', id: 'abc' } });
  assert.deepEqual(row.types, { n: { type: 'Number' }, d: { type: 'Date' }, f: { type: 'File' } });
});

test('defaults: missing dates and ACLs', () => {
  const only = prepareRow('Post', { objectId: 'a', updatedAt: '2020-01-01T00:00:00.000Z' }, NOW);
  assert.deepEqual([only.createdAt, only.updatedAt], ['2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z']);
  assert.deepEqual(only.acl, { '*': { read: true, write: true } });
  assert.equal(prepareRow('Post', { objectId: 'a' }, NOW).createdAt, NOW);
  assert.deepEqual(prepareRow('_User', { objectId: 'u1' }, NOW).acl, { '*': { read: true }, u1: { read: true, write: true } });
});

test('bcryptPassword is dropped with a reason; password and salt are kept', () => {
  const row = prepareRow('_User', { objectId: 'u', password: 'h', salt: 's', bcryptPassword: '$2a$...' }, NOW);
  assert.deepEqual(row.data, { password: 'h', salt: 's' });
  assert.equal(row.dropped[0].field, 'bcryptPassword');
});

test('malformed records are RecordErrors', () => {
  const bad: unknown[] = [
    [1], null, { n: 1 }, { objectId: '' }, { objectId: 'a b' }, { objectId: 'a', createdAt: '2021-02-30T00:00:00.000Z' },
    { objectId: 'a', ACL: { '*': { read: 'yes' } } }, { objectId: 'a', 'bad key': 1 }, { objectId: 'a', x: { __type: 'Pointer' } },
    { objectId: 'a', g: { __type: 'GeoPoint', latitude: 91, longitude: 0 } }, { objectId: 'a', s: 'nul\u0000' },
  ];
  for (const r of bad) assert.throws(() => prepareRow('Post', r, NOW), RecordError, JSON.stringify(r));
});
