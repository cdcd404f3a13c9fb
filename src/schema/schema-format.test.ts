import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatClassSchema, formatSchemas } from './schema-format.ts';

test('a user class: reserved columns, its fields, className for Pointer and Relation', () => {
  const out = formatClassSchema({ name: 'Post', fields: { title: { type: 'String' }, author: { type: 'Pointer', className: '_User' }, likes: { type: 'Relation', className: '_User' } } });
  assert.deepEqual(out, {
    objectId: { type: 'String' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
    ACL: { type: 'ACL' },
    title: { type: 'String' },
    author: { type: 'Pointer', className: '_User' },
    likes: { type: 'Relation', className: '_User' },
  });
});

test('_User shows password as String and never the stored secrets', () => {
  const out = formatClassSchema({ name: '_User', fields: { salt: { type: 'String' }, sessionToken: { type: 'String' }, _password_hash: { type: 'String' }, password: { type: 'String' }, age: { type: 'Number' } } });
  assert.deepEqual(out.password, { type: 'String' });
  assert.deepEqual(out.username, { type: 'String' });
  assert.deepEqual(out.age, { type: 'Number' });
  for (const k of ['salt', 'sessionToken', '_password_hash']) assert.equal(out[k], undefined, k);
});

test('formatSchemas keys every class by name', () => {
  assert.deepEqual(Object.keys(formatSchemas([{ name: 'A', fields: {} }, { name: '_Role', fields: {} }])), ['A', '_Role']);
  assert.deepEqual(formatSchemas([{ name: '_Role', fields: {} }])._Role.users, { type: 'Relation', className: '_User' });
});
