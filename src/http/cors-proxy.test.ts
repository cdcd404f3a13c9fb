import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../config.ts';
import { corsPolicy, parseCorsOrigins, parseTrustProxy } from './cors-proxy.ts';

test('CORS: * means any origin without credentials; a list means those origins with credentials', () => {
  assert.deepEqual(corsPolicy(parseCorsOrigins('*')), { origin: '*', credentials: false });
  assert.deepEqual(corsPolicy(parseCorsOrigins('https://a.example.com, http://localhost:8080/')), {
    origin: ['https://a.example.com', 'http://localhost:8080'],
    credentials: true,
  });
  for (const bad of ['', ' , ', 'https://a.example.com,*', 'a.example.com', 'https://a.example.com/path', 'file:///x']) {
    assert.throws(() => parseCorsOrigins(bad), ConfigError, bad);
  }
});

test('trust proxy: off unless configured; true, hop counts and address lists', () => {
  assert.equal(parseTrustProxy(undefined), false);
  assert.equal(parseTrustProxy('false'), false);
  assert.equal(parseTrustProxy('true'), true);
  assert.equal(parseTrustProxy('2'), 2);
  assert.deepEqual(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1'), ['10.0.0.0/8', '127.0.0.1', '::1']);
  for (const bad of ['yes', 'proxy.example.com', ',']) assert.throws(() => parseTrustProxy(bad), ConfigError, bad);
});
