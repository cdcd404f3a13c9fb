import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentCommits } from './recent-commits.ts';

test('a committed token answers until its time is up; unknown ones never', () => {
  let now = 1000;
  const r = new RecentCommits(500, 10, () => now);
  r.add('t1', 'o1');
  assert.equal(r.has('t1'), true);
  assert.equal(r.has('t2'), false);
  now += 499;
  assert.equal(r.has('t1'), true);
  now += 1;
  assert.equal(r.has('t1'), false, 'expired');
});

test('the oldest go first past the bound', () => {
  const r = new RecentCommits(60_000, 3);
  for (const t of ['a', 'b', 'c', 'd']) r.add(t, `o-${t}`);
  assert.deepEqual(['a', 'b', 'c', 'd'].map((t) => r.has(t)), [false, true, true, true]);
});

test('deleted files are forgotten', () => {
  const r = new RecentCommits(60_000);
  r.add('a', 'o1');
  r.add('b', 'o2');
  r.forgetObjects(['o1', 'o9']);
  assert.equal(r.has('a'), false);
  assert.equal(r.has('b'), true);
});
