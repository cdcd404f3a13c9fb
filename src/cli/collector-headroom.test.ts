import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectorHeadroomFlag, HEAP_GROWING_PERCENT, MIN_HEAP_LIMIT_BYTES } from './collector-headroom.ts';

test('a server with a large heap limit gets the growing factor', () => {
  assert.equal(collectorHeadroomFlag([], 4 * 1024 ** 3), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  assert.equal(collectorHeadroomFlag(['--enable-source-maps'], MIN_HEAP_LIMIT_BYTES), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
});

test('a small heap keeps V8 factors', () => {
  assert.equal(collectorHeadroomFlag([], MIN_HEAP_LIMIT_BYTES - 1), undefined);
  assert.equal(collectorHeadroomFlag([], 512 * 1024 ** 2), undefined);
});

test("the operator's own factor is left alone", () => {
  assert.equal(collectorHeadroomFlag(['--heap-growing-percent=50'], 4 * 1024 ** 3), undefined);
  assert.equal(collectorHeadroomFlag(['--heap_growing_percent=50'], 4 * 1024 ** 3), undefined);
  assert.equal(collectorHeadroomFlag([], 4 * 1024 ** 3, '--enable-source-maps --heap-growing-percent=50'), undefined);
  assert.equal(collectorHeadroomFlag([], 4 * 1024 ** 3, '--enable-source-maps'), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
});
