import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileRecord } from './file-records.ts';
import { IssuedTokens } from './issued-tokens.ts';

const row = (id: string): FileRecord => ({ object_id: id, key: `k-${id}`, blob: `b${id}`, state: 'pending', mime_type: 'text/plain', name: 'n', size: null, md5: null });

test('one PUT at a time takes an issued token; given back, it can be taken again; dropped, never', () => {
  const t = new IssuedTokens();
  t.add('h1', row('o1'), Date.now() + 60_000);
  assert.deepEqual(t.take('h1', 1000), { row: row('o1') });
  assert.equal(t.take('h1', 1000), 'busy');
  t.giveBack('h1');
  assert.deepEqual(t.take('h1', 1000), { row: row('o1') });
  t.drop('h1');
  assert.equal(t.take('h1', 1000), undefined);
  assert.equal(t.take('unknown', 1000), undefined);
});

test('a token too close to its end is not taken (the claim decides)', () => {
  let now = 1000;
  const t = new IssuedTokens(10, () => now);
  t.add('h', row('o'), 2000);
  now = 1499;
  assert.ok(typeof t.take('h', 500) === 'object');
  t.giveBack('h');
  now = 1500;
  assert.equal(t.take('h', 500), undefined);
  now = 0;
  assert.equal(t.take('h', 500), undefined, 'forgotten once too late');
});

test('the oldest go first past the bound; deleted files are forgotten', () => {
  const t = new IssuedTokens(3);
  const until = Date.now() + 60_000;
  for (const h of ['a', 'b', 'c', 'd']) t.add(h, row(`o-${h}`), until);
  assert.equal(t.take('a', 0), undefined);
  t.forgetObjects(['o-b', 'o-x']);
  assert.equal(t.take('b', 0), undefined);
  assert.ok(typeof t.take('c', 0) === 'object');
});
