import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slotsOfProcess } from './group-slots.ts';

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
