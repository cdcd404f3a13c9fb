import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClassSchema } from '../model/class-schema.ts';
import { encodeIncluded, encodeRow, type EncodeOptions } from './encode.ts';

// encodeIncluded must give exactly what include built before it: the pointer's `__type` and
// `className`, then encodeRow's object spread after them (same keys, order and values).
const schema: ClassSchema = { name: 'Team', fields: { members: { type: 'Relation', className: '_User' }, name: { type: 'String' } } };
const cases: { title: string; className: string; data: string; opts?: Partial<EncodeOptions> }[] = [
  {
    title: 'a user: hidden fields dropped',
    className: '_User',
    data: '{"password": "scrypt$x", "username": "u1", "sessionToken": "t", "authData": {"weixin": {"uid": "1"}}, "emailVerified": null, "mobilePhoneVerified": false}',
  },
  { title: 'a user read with the master key keeps authData', className: '_User', data: '{"password": "p", "username": "u1", "authData": {"a": 1}}', opts: { master: true } },
  { title: 'invisible fields dropped', className: 'Post', data: '{"a": 1, "secret": "s", "b": [1, 2]}', opts: { drop: ['secret'] } },
  { title: 'integer-like keys, and keys named like the pointer\'s own', className: 'Post', data: '{"b": 1, "10": "ten", "2": "two", "__type": "x", "className": "y", "z": null}' },
  { title: 'a __proto__ key stays a key', className: 'Post', data: '{"a": 1, "__proto__": {"polluted": true}, "c": 3}' },
  { title: 'Relation markers', className: 'Team', data: '{"name": "t"}', opts: { schema } },
  { title: 'an empty document', className: 'Post', data: '{}' },
];

for (const c of cases) {
  test(`encodeIncluded is the spread of encodeRow after __type and className: ${c.title}`, () => {
    const row = () => ({ objectId: 'o1', createdAt: '2026-11-21 22:35:34.123+00', updatedAt: '2026-11-21 22:35:35+00', acl: null, data: JSON.parse(c.data) as Record<string, unknown> });
    const opts = { className: c.className, ...c.opts };
    const before = { __type: 'Pointer', className: c.className, ...encodeRow(row(), { ...opts, withAcl: false }) };
    const now = encodeIncluded(row(), opts);
    assert.equal(JSON.stringify(now), JSON.stringify(before));
    assert.deepEqual(Object.keys(now), Object.keys(before));
    assert.equal(Object.getPrototypeOf(now), Object.prototype);
  });
}
