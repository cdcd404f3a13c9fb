import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors/api-error.ts';

/** For unit tests: runs `fn`, which must throw an ApiError, and returns that error's code. */
export function thrownCode(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e.code;
  }
  assert.fail('expected an ApiError');
}
