import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shareOfProcess, slotsOfProcess } from './group-slots.ts';

test('one process keeps the whole cap; several share it, at least 2 each', () => {
  assert.equal(slotsOfProcess(8), 8);
  assert.equal(slotsOfProcess(8, 1), 8);
  assert.equal(slotsOfProcess(8, 2), 4);
  assert.equal(slotsOfProcess(8, 3), 3);
  assert.equal(slotsOfProcess(8, 8), 2);
  assert.equal(slotsOfProcess(8, 64), 2);
  assert.equal(slotsOfProcess(2, 2), 2);
  assert.equal(slotsOfProcess(8, 0), 8);
});

test('a share of a server-wide count: the whole with one process, split among several, never below the least', () => {
  assert.equal(shareOfProcess(4), 4);
  assert.equal(shareOfProcess(4, 1, 2), 4);
  assert.equal(shareOfProcess(4, 2, 2), 2);
  assert.equal(shareOfProcess(2, 2), 1);
  assert.equal(shareOfProcess(2, 3), 1);
  assert.equal(shareOfProcess(4, 3, 2), 2);
  assert.equal(shareOfProcess(4, 8, 2), 2);
  assert.equal(shareOfProcess(2, 0), 2);
});
