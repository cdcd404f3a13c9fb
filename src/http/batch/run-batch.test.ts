import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../errors/api-error.ts';
import { parseBatchItem, runBatch } from './run-batch.ts';

test('an unexpected failure of one item is code 1 without details, reported, and the batch goes on', async () => {
  const reported: number[] = [];
  const out = await runBatch(
    [
      { method: 'GET', path: '/1.1/date' },
      { method: 'GET', path: '/1.1/boom' },
      { method: 'GET', path: '/1.1/api-error' },
      { method: 'GET', path: '/1.1/date' },
    ],
    async (item) => {
      if (item.path === '/1.1/boom') throw new TypeError('secret internals');
      if (item.path === '/1.1/api-error') throw new ApiError('invalidQuery', 'nope');
      return { body: 'ok' };
    },
    (_err, index) => reported.push(index),
  );
  assert.deepEqual(out, [
    { success: 'ok' },
    { error: { code: 1, error: 'Internal server error. No information available.' } },
    { error: { code: 102, error: 'nope' } },
    { success: 'ok' },
  ]);
  assert.deepEqual(reported, [1]);
});

test('items: method upper-cased, params over the path query, GET bodies dropped', () => {
  assert.deepEqual(parseBatchItem({ method: 'get', path: '/1.1/classes/A?limit=5&where=x', params: { where: { a: 1 } }, body: { x: 1 } }, 0), {
    method: 'GET',
    path: '/1.1/classes/A',
    query: { limit: '5', where: { a: 1 } },
    body: undefined,
  });
  assert.throws(() => parseBatchItem({ method: 'GET', path: '/1.1/x', params: [1] }, 3), { code: 107, message: /#3/ });
});
