import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeEqual } from './constant-time.ts';

// authenticate.ts compares the app id, keys and signatures only through safeEqual; these tests
// pin down safeEqual's own behaviour. Timing itself is not measured (flaky by nature): the
// guarantee comes from hashing both sides to 32 bytes and crypto.timingSafeEqual.

test('equal strings are equal', () => {
  assert.equal(safeEqual('testAppKey', 'testAppKey'), true);
  assert.equal(safeEqual('', ''), true);
  assert.equal(safeEqual('ключ,🔑', 'ключ,🔑'), true);
});

test('any difference is a mismatch: content, case, length, prefix, trailing space', () => {
  assert.equal(safeEqual('testAppKey', 'testAppKeY'), false);
  assert.equal(safeEqual('testAppKey', 'testappkey'), false);
  assert.equal(safeEqual('testAppKe', 'testAppKey'), false);
  assert.equal(safeEqual('testAppKey', 'testAppKe'), false);
  assert.equal(safeEqual('testAppKey ', 'testAppKey'), false);
  assert.equal(safeEqual('', 'testAppKey'), false);
  assert.equal(safeEqual('testAppKey\u0000', 'testAppKey'), false);
});

test('inputs of very different lengths do not throw (timingSafeEqual alone would)', () => {
  assert.equal(safeEqual('x'.repeat(100_000), 'x'), false);
  assert.equal(safeEqual('x', 'x'.repeat(100_000)), false);
});
