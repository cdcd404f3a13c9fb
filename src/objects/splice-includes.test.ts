import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HeadWithPage, PageRowWithPointers } from './page-includes.ts';
import { spliceIncludes, uniqueMember } from './splice-includes.ts';

const PTR = '{"__type": "Pointer", "objectId": "u1", "className": "_User"}';
const HEAD: HeadWithPage = { field: 'owner', className: '_User', strip: [] };
const AT = '2026-11-27T00:00:00.000Z';

function row(doc: string, pointer: string | null): PageRowWithPointers {
  return { objectId: 'r1', createdAt: AT, updatedAt: AT, data_text: doc, pointers: [pointer] };
}

const users = new Map([['owner', { rows: [{ objectId: 'u1', createdAt: AT, updatedAt: AT, data_text: '{"name": "é", "n": 1.50}' }] }]]);

test('uniqueMember finds the one top-level member, and refuses a second occurrence', () => {
  const doc = `{"n": 1, "owner": ${PTR}}`;
  assert.equal(uniqueMember(doc, 'owner', PTR), doc.indexOf(PTR));
  assert.equal(uniqueMember(`{"a": {"owner": ${PTR}}, "owner": ${PTR}}`, 'owner', PTR), undefined);
  assert.equal(uniqueMember('{"n": 1}', 'owner', PTR), undefined);
});

test('spliceIncludes places the object where the pointer was, as include does', () => {
  const [out] = spliceIncludes([row(`{"n": 1, "owner": ${PTR}, "zz": "\\"owner\\": x"}`, PTR)], [HEAD], users) as string[];
  assert.deepEqual(JSON.parse(out), {
    n: 1,
    owner: { __type: 'Pointer', className: '_User', name: 'é', n: 1.5, objectId: 'u1', createdAt: AT, updatedAt: AT },
    zz: '"owner": x',
    objectId: 'r1',
    createdAt: AT,
    updatedAt: AT,
  });
});

test('spliceIncludes leaves missing objects, nulls and scalars, and gives up on anything else', () => {
  const other = '{"__type": "Pointer", "objectId": "u9", "className": "_User"}';
  const [kept] = spliceIncludes([row(`{"owner": ${other}}`, other)], [HEAD], users) as string[];
  assert.deepEqual(JSON.parse(kept).owner, { __type: 'Pointer', objectId: 'u9', className: '_User' });
  assert.ok(spliceIncludes([row('{"owner": null}', 'null'), row('{"n": 1}', null)], [HEAD], users));
  assert.equal(spliceIncludes([row(`{"owner": [${PTR}]}`, `[${PTR}]`)], [HEAD], users), undefined, 'an array');
  const team = '{"__type": "Pointer", "objectId": "u1", "className": "Team"}';
  assert.equal(spliceIncludes([row(`{"owner": ${team}}`, team)], [HEAD], users), undefined, 'another class');
  assert.equal(spliceIncludes([row(`{"m": {"owner": ${PTR}}, "owner": ${PTR}}`, PTR)], [HEAD], users), undefined, 'twice');
  const file = '{"f": {"id": "x", "__type": "File"}, "owner": ' + PTR + '}';
  assert.equal(spliceIncludes([row(file, PTR)], [HEAD], users), undefined, 'a file on the page');
});
