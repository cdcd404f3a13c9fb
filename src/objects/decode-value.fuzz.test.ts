// Property-based: any JSON as a field value or a write body is stored form or a 4xx ApiError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isApiError } from '../errors/api-error.ts';
import { HOSTILE_KEYS, hostileJson, onlyClientErrors, RUNS } from '../../test/support/hostile-json.ts';
import { decodeValue } from './decode-value.ts';
import { checkFieldName, parseWriteBody } from './parse-write.ts';

const clientError = (e: unknown) => isApiError(e) && e.status >= 400 && e.status < 500;

test('decodeValue: any JSON value decodes or gets a 4xx', () => {
  fc.assert(fc.property(hostileJson, (v) => onlyClientErrors(() => decodeValue(v, 'f'), clientError)), { numRuns: RUNS });
});

test('parseWriteBody: any body parses or gets a 4xx, for create and update', () => {
  fc.assert(
    fc.property(hostileJson, fc.constantFrom('create' as const, 'update' as const), (body, mode) => {
      const ok = onlyClientErrors(() => parseWriteBody(body, mode), clientError);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      return ok;
    }),
    { numRuns: RUNS },
  );
});

test('field names: every name is accepted or refused with 105, never anything else', () => {
  fc.assert(
    fc.property(fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 200 })), (name) =>
      onlyClientErrors(() => checkFieldName(name), (e) => isApiError(e) && e.code === 105),
    ),
    { numRuns: RUNS },
  );
});
