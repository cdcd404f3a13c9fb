import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageRow } from './page-budget.ts';
import type { HeadWithPage } from './page-includes.ts';
import { spliceIncludes, topLevelValue } from './splice-includes.ts';

const PTR = '{"__type": "Pointer", "objectId": "u1", "className": "_User"}';
const HEAD: HeadWithPage = { field: 'owner', className: '_User', strip: [] };
const AT = '2026-11-27T00:00:00.000Z';

function row(doc: string): PageRow {
  return { objectId: 'r1', createdAt: AT, updatedAt: AT, data_text: doc };
}

const users = new Map([['owner', { rows: [{ objectId: 'u1', createdAt: AT, updatedAt: AT, data_text: '{"name": "é", "n": 1.50}' }] }]]);

test('topLevelValue finds the top-level member only, past nested ones and strings', () => {
  const doc = `{"n": 1, "a": {"owner": 2}, "s": "\\\\\\"owner\\": 3", "l": [{"owner": 4}], "owner": ${PTR}}`;
  assert.equal(topLevelValue(doc, 'owner'), doc.lastIndexOf(PTR));
  assert.equal(topLevelValue(`{"a": {"owner": ${PTR}}}`, 'owner'), -1);
  assert.equal(topLevelValue('{"s": "\\"owner\\": 1"}', 'owner'), -1);
  assert.equal(topLevelValue('{"owners": 1}', 'owner'), -1);
  assert.equal(topLevelValue('{"owner": null}', 'owner'), 10);
});

test('spliceIncludes places the object where the pointer was, as include does', () => {
  const [out] = spliceIncludes([row(`{"n": 1, "m": {"owner": ${PTR}}, "owner": ${PTR}, "zz": "\\"owner\\": x"}`)], [HEAD], users) as string[];
  assert.deepEqual(JSON.parse(out), {
    n: 1,
    m: { owner: { __type: 'Pointer', objectId: 'u1', className: '_User' } },
    owner: { __type: 'Pointer', className: '_User', name: 'é', n: 1.5, objectId: 'u1', createdAt: AT, updatedAt: AT },
    zz: '"owner": x',
    objectId: 'r1',
    createdAt: AT,
    updatedAt: AT,
  });
});

test('spliceIncludes leaves missing objects, nulls and scalars, and gives up on anything else', () => {
  const other = '{"__type": "Pointer", "objectId": "u9", "className": "_User"}';
  const [kept] = spliceIncludes([row(`{"owner": ${other}}`)], [HEAD], users) as string[];
  assert.deepEqual(JSON.parse(kept).owner, { __type: 'Pointer', objectId: 'u9', className: '_User' });
  assert.ok(spliceIncludes([row('{"owner": null}'), row('{"n": 1}'), row('{"owner": "x"}')], [HEAD], users));
  assert.equal(spliceIncludes([row(`{"owner": [${PTR}]}`)], [HEAD], users), undefined, 'an array');
  const team = '{"__type": "Pointer", "objectId": "u1", "className": "Team"}';
  assert.equal(spliceIncludes([row(`{"owner": ${team}}`)], [HEAD], users), undefined, 'another class');
  assert.equal(spliceIncludes([row('{"owner": {"__type": "Pointer"}}')], [HEAD], users), undefined, 'another object');
  const file = '{"f": {"id": "x", "__type": "File"}, "owner": ' + PTR + '}';
  assert.equal(spliceIncludes([row(file)], [HEAD], users), undefined, 'a file on the page');
});
