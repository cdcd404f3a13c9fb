import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameBody } from './same-body.ts';

test('sameBody: the same keys in the same order with values equal as JSON', () => {
  const body = JSON.parse('{"n":1,"s":"x","a":[1,{"b":2}],"p":{"__type":"Pointer","className":"X","objectId":"1"},"z":null,"t":true}');
  const answer = JSON.parse(JSON.stringify(body));
  assert.equal(sameBody(answer, body), true);
  assert.equal(sameBody({}, {}), true);
});

test('sameBody: any difference means the replacement is checked again', () => {
  const body = { n: 1, m: { a: 1, b: 2 } };
  assert.equal(sameBody({ m: { a: 1, b: 2 }, n: 1 }, body), false, 'key order');
  assert.equal(sameBody({ n: 1, m: { b: 2, a: 1 } }, body), false, 'nested key order');
  assert.equal(sameBody({ n: 2, m: { a: 1, b: 2 } }, body), false, 'a value');
  assert.equal(sameBody({ n: '1', m: { a: 1, b: 2 } }, body), false, 'a type');
  assert.equal(sameBody({ n: 1, m: { a: 1, b: 2 }, extra: 0 }, body), false, 'an added key');
  assert.equal(sameBody({ n: 1 }, body), false, 'a dropped key');
  assert.equal(sameBody({ n: 1, m: [1] }, { n: 1, m: { 0: 1 } }), false, 'array and object');
  assert.equal(sameBody({ n: null }, { n: {} }), false, 'null and object');
  assert.equal(sameBody({ n: 1 }, [1]), false, 'a body that is not an object');
  assert.equal(sameBody({ n: 1 }, null), false);
});
