import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeEqual } from './constant-time.ts';

// authenticate.ts compares the app id, keys and signatures only through safeEqual; these tests
// pin down safeEqual's own behaviour. Timing itself is not measured (flaky by nature): the
// guarantee comes from crypto.timingSafeEqual over buffers of a fixed size (zero-padded values,
// or SHA-256 digests of long ones) and a separate comparison of the lengths.

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

test('values at and around the padded size, multi-byte ones, and values compared by digest', () => {
  const at = 'k'.repeat(256);
  assert.equal(safeEqual(at, at), true);
  assert.equal(safeEqual(at.slice(1), at), false);
  assert.equal(safeEqual(`${at}k`, at), false);
  assert.equal(safeEqual(at, `${at}k`), false);
  // Longer than the buffer: compared by digest, still exactly.
  const long = 'L'.repeat(300);
  assert.equal(safeEqual(long, long), true);
  assert.equal(safeEqual(`${long.slice(1)}M`, long), false);
  // 128 characters of two UTF-8 bytes fill the buffer; 129 do not fit.
  const wide = 'é'.repeat(128);
  assert.equal(safeEqual(wide, wide), true);
  assert.equal(safeEqual(`${wide}é`, `${wide}é`), true);
  assert.equal(safeEqual(`${wide}é`, wide), false);
  assert.equal(safeEqual(wide, `${wide}é`), false);
  // Zero bytes pad the buffer: a value that differs from the expected one by trailing NULs only
  // has another length.
  assert.equal(safeEqual('key', 'key\u0000'), false);
  assert.equal(safeEqual('key\u0000\u0000', 'key'), false);
  assert.equal(safeEqual('\u0000', ''), false);
});

test('many different expected values (more than are kept ready) compare correctly', () => {
  for (let i = 0; i < 40; i++) {
    assert.equal(safeEqual(`key-${i}`, `key-${i}`), true);
    assert.equal(safeEqual(`key-${i}`, `key-${i + 1}`), false);
  }
});
