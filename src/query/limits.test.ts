import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, parseLimit, parseSkip } from './limits.ts';

describe('parseLimit', () => {
  const CASES: Array<[name: string, raw: unknown, count: boolean, expected: number]> = [
    ['absent', undefined, false, DEFAULT_LIMIT],
    ['empty string', '', false, DEFAULT_LIMIT],
    ['number', 10, false, 10],
    ['query-string number', '25', false, 25],
    ['maximum', MAX_LIMIT, false, MAX_LIMIT],
    ['above maximum gives 100', 1001, false, DEFAULT_LIMIT],
    ['negative gives 100', -1, false, DEFAULT_LIMIT],
    ['fraction gives 100', 2.5, false, DEFAULT_LIMIT],
    ['garbage gives 100', 'ten', false, DEFAULT_LIMIT],
    ['exponent notation gives 100', '1e2', false, DEFAULT_LIMIT],
    ['zero without count gives 100', 0, false, DEFAULT_LIMIT],
    ['zero with count is kept', '0', true, 0],
    ['count does not change other values', 5, true, 5],
  ];
  for (const [name, raw, count, expected] of CASES) {
    test(name, () => assert.equal(parseLimit(raw, { count }), expected));
  }
});

describe('parseSkip', () => {
  const OK: Array<[unknown, number]> = [[undefined, 0], ['', 0], [0, 0], ['20', 20], [5, 5]];
  for (const [raw, expected] of OK) test(`accepts ${JSON.stringify(raw)}`, () => assert.equal(parseSkip(raw), expected));
  const BAD: unknown[] = [-1, '-5', 1.5, 'x', 2 ** 60, {}];
  for (const raw of BAD) {
    test(`rejects ${JSON.stringify(raw)}`, () => {
      assert.throws(() => parseSkip(raw), (err: unknown) => err instanceof ApiError && err.code === 102 && /skip/.test(err.message));
    });
  }
});
