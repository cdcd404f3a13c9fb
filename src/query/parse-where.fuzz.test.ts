// Property-based: any JSON as `where` parses or is refused with a 4xx ApiError; never another
// exception (a 500), never a hang, and Object.prototype is never touched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isApiError } from '../errors/api-error.ts';
import { hostileJson, onlyClientErrors, RUNS } from '../../test/support/hostile-json.ts';
import { parseWhere } from './parse-where.ts';
import { parseFieldKey } from './parse-key.ts';

const clientError = (e: unknown) => isApiError(e) && e.status >= 400 && e.status < 500;

test('parseWhere: any JSON parses or gets a 4xx, within a second', () => {
  fc.assert(
    fc.property(hostileJson, (where) => {
      const t0 = performance.now();
      const ok = onlyClientErrors(() => parseWhere(where), clientError);
      assert.ok(performance.now() - t0 < 1000, 'parse took over a second');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      return ok;
    }),
    { numRuns: RUNS },
  );
});

test('parseWhere: a where built as text (JSON.parse) behaves the same', () => {
  fc.assert(fc.property(hostileJson, (v) => onlyClientErrors(() => parseWhere(JSON.parse(JSON.stringify({ $or: [v, { a: v }] }) ?? 'null')), clientError)), { numRuns: RUNS });
});

test('field keys: any string is a path or a 4xx', () => {
  fc.assert(fc.property(fc.string({ maxLength: 300 }), (key) => onlyClientErrors(() => parseFieldKey(key), clientError)), { numRuns: RUNS });
});
