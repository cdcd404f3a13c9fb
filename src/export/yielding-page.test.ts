import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { readYielding, type PageSizer } from './yielding-page.ts';

const noPause = async () => {};

test('a page that times out is read again with half the rows; the size grows back after', async () => {
  const sizer: PageSizer = { size: 1000, max: 1000 };
  const asked: number[] = [];
  const read = async (limit: number) => {
    asked.push(limit);
    if (limit > 300) throw new ApiError('timeout', 'held too long');
    return limit;
  };
  assert.equal(await readYielding(sizer, read, { pause: noPause }), 250);
  assert.deepEqual(asked, [1000, 500, 250]);
  assert.equal(sizer.size, 500, 'doubled after the page went through');
});

test('other errors are not retried', async () => {
  const sizer: PageSizer = { size: 100, max: 100 };
  let calls = 0;
  await assert.rejects(readYielding(sizer, async () => { calls++; throw new Error('corrupt'); }, { pause: noPause }), /corrupt/);
  assert.equal(calls, 1);
  assert.equal(sizer.size, 100);
});

test('a timeout at the smallest size is the error after maxTries, with growing pauses between', async () => {
  const sizer: PageSizer = { size: 100, max: 100 };
  const pauses: number[] = [];
  let calls = 0;
  const read = async () => { calls++; throw new ApiError('timeout'); };
  await assert.rejects(readYielding(sizer, read, { pause: async (ms) => { pauses.push(ms); }, minSize: 25, maxTries: 3, pauseMs: 10 }), (e: unknown) => e instanceof ApiError && e.code === 124);
  // 100 -> 50 -> 25, then three tries at 25.
  assert.equal(calls, 5);
  assert.deepEqual(pauses, [10, 10, 20, 30]);
});

test('a stopped job stops the retries (the pause throws)', async () => {
  const sizer: PageSizer = { size: 10, max: 10 };
  const read = async () => { throw new ApiError('timeout'); };
  await assert.rejects(readYielding(sizer, read, { pause: async () => { throw new Error('stopped'); } }), /stopped/);
});
