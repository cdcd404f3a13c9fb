import assert from 'node:assert/strict';
import { test } from 'node:test';
import { downloadToken, downloadUrl, tokenHash, tokenMatches } from './download-link.ts';

const SECRET = 'f'.repeat(64);
const ID = 'A'.repeat(48);

test('the token is 256 bits, per job and per secret, and only its hash matches', () => {
  const t = downloadToken(SECRET, ID);
  assert.match(t, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(downloadToken(SECRET, 'B'.repeat(48)), t);
  assert.notEqual(downloadToken('e'.repeat(64), ID), t);
  const stored = tokenHash(t);
  assert.ok(tokenMatches(t, stored));
  assert.ok(!tokenMatches(t.slice(0, -1), stored));
  assert.ok(!tokenMatches('', stored));
  assert.ok(!tokenMatches(t, null));
  assert.ok(!tokenMatches(t, 'not-hex'));
});

test('the URL names the job and carries the token', () => {
  const url = new URL(downloadUrl('https://api.example.com/', SECRET, ID));
  assert.equal(url.pathname, `/larder/export/${ID}.tar.gz`);
  assert.equal(url.searchParams.get('token'), downloadToken(SECRET, ID));
});
