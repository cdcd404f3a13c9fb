import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { jsonDepth, MAX_JSON_DEPTH, parseJsonBody } from './json-body.ts';

test('depth counts nesting and skips brackets inside strings', () => {
  assert.equal(jsonDepth('{"a":[1,{"b":2}]}'), 3);
  assert.equal(jsonDepth('{"a":"[[[[\\"[[["}'), 1);
  assert.equal(jsonDepth('1'), 0);
});

test('empty body is no body', () => assert.equal(parseJsonBody('  '), undefined));

test('too deep and malformed JSON are 107', () => {
  const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
  for (const text of [deep, '{', '{"a":}', 'nope', '{"a":1}x']) {
    assert.throws(() => parseJsonBody(text), (e: unknown) => e instanceof ApiError && e.code === 107, text.slice(0, 10));
  }
});

test('__proto__ stays an own property', () => {
  const v = parseJsonBody('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.ok(Object.prototype.hasOwnProperty.call(v, '__proto__'));
});
