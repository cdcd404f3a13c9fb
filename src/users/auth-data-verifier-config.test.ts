import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../config.ts';
import { parseVerifierConfig } from './auth-data-verifier-config.ts';

test('unset means no verifiers', () => {
  assert.equal(parseVerifierConfig(undefined).size, 0);
});

test('a URL, a webhook object and a module', () => {
  const m = parseVerifierConfig(JSON.stringify({ weixin: 'https://v.example/w', github: { url: 'http://127.0.0.1:9/g', secret: 's', timeoutMs: 100 }, apple: { module: '/etc/v.mjs' } }));
  assert.deepEqual(m.get('weixin'), { kind: 'webhook', url: 'https://v.example/w', secret: undefined, timeoutMs: 5000 });
  assert.deepEqual(m.get('github'), { kind: 'webhook', url: 'http://127.0.0.1:9/g', secret: 's', timeoutMs: 100 });
  assert.deepEqual(m.get('apple'), { kind: 'module', path: '/etc/v.mjs' });
});

const BAD: [string, string, RegExp][] = [
  ['not JSON', '{', /JSON object keyed by platform/],
  ['an array', '[]', /JSON object keyed by platform/],
  ['a bad platform name', '{"a b":"https://x"}', /not a platform name/],
  ['a number', '{"x":1}', /expected a URL/],
  ['not a URL', '{"x":"nope"}', /is not a URL/],
  ['ftp', '{"x":"ftp://h/"}', /must start with http:\/\/ or https:\/\//],
  ['unknown member', '{"x":{"url":"https://h","retries":3}}', /unknown member "retries"/],
  ['zero timeout', '{"x":{"url":"https://h","timeoutMs":0}}', /timeoutMs/],
  ['huge timeout', '{"x":{"url":"https://h","timeoutMs":600000}}', /timeoutMs/],
  ['empty secret', '{"x":{"url":"https://h","secret":""}}', /secret/],
  ['module with extras', '{"x":{"module":"/a.mjs","url":"https://h"}}', /expected \{"module"/],
];
for (const [name, raw, re] of BAD) {
  test(`refused: ${name}`, () => {
    assert.throws(() => parseVerifierConfig(raw), (e) => e instanceof ConfigError && re.test(e.message));
  });
}
