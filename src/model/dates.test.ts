import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { decodeValue } from '../objects/decode-value.ts';
import { parseValue } from '../query/parse-value.ts';
import { ACCEPTED, REFUSED } from './dates.fixture.ts';
import { normalizeIso } from './dates.ts';

describe('normalizeIso: one rule for writes and queries', () => {
  for (const [input, stored] of ACCEPTED) {
    test(`accepts ${input}`, () => {
      assert.equal(normalizeIso(input), stored);
      // The write path stores it and the query path compares with the same text.
      assert.deepEqual(decodeValue({ __type: 'Date', iso: input }, 'd'), { __type: 'Date', iso: stored });
      assert.deepEqual(parseValue({ __type: 'Date', iso: input }), { type: 'date', iso: stored });
    });
  }
  for (const input of REFUSED) {
    test(`refuses ${JSON.stringify(input)}`, () => {
      assert.equal(normalizeIso(input), undefined);
      assert.throws(() => decodeValue({ __type: 'Date', iso: input }, 'd'), (e) => isApiError(e) && e.code === 111);
      assert.throws(() => parseValue({ __type: 'Date', iso: input }), (e) => isApiError(e) && e.code === 102);
    });
  }
});
