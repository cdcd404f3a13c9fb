import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerEnv } from './cluster-primary.ts';

test('cluster workers get a small thread pool and two malloc arenas by default', () => {
  assert.deepEqual(workerEnv({}), { UV_THREADPOOL_SIZE: '2', MALLOC_ARENA_MAX: '2' });
});

test("the operator's own settings win", () => {
  assert.deepEqual(workerEnv({ UV_THREADPOOL_SIZE: '8', MALLOC_ARENA_MAX: '4' }), {});
  assert.deepEqual(workerEnv({ UV_THREADPOOL_SIZE: '8' }), { MALLOC_ARENA_MAX: '2' });
});
