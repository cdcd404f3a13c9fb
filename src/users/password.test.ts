import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, isPasswordSet, leancloudHash, SCRYPT_PARAMS, verifyPassword } from './password.ts';

// leancloud-behaviour §2.3 / leancloud-export-format §4.
const LC_SALT = 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2';
const LC_HASH = 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==';

test('the LeanCloud export hash reproduces the documented test vector', () => {
  assert.equal(leancloudHash('password', LC_SALT), LC_HASH);
  assert.notEqual(leancloudHash('Password', LC_SALT), LC_HASH);
});

test('new hashes are self-describing scrypt strings with a random salt', async () => {
  const a = await hashPassword('s3cret');
  const b = await hashPassword('s3cret');
  const { N, r, p } = SCRYPT_PARAMS;
  assert.match(a, new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9+/=]+\\$[A-Za-z0-9+/=]{88}$`));
  assert.notEqual(a, b);
  assert.ok(!a.includes('s3cret'));
});

test('scrypt hashes verify the right password only, with no upgrade', async () => {
  const stored = await hashPassword('correct horse');
  assert.deepEqual(await verifyPassword('correct horse', { password: stored }), { ok: true });
  assert.deepEqual(await verifyPassword('correct hors', { password: stored }), { ok: false });
  assert.deepEqual(await verifyPassword('', { password: stored }), { ok: false });
});

test('LeanCloud hashes verify with their salt and come back with a scrypt upgrade', async () => {
  const res = await verifyPassword('password', { password: LC_HASH, salt: LC_SALT });
  assert.equal(res.ok, true);
  assert.match(res.upgrade ?? '', /^scrypt\$/);
  assert.deepEqual(await verifyPassword('password', { password: res.upgrade }), { ok: true });
  assert.deepEqual(await verifyPassword('wrong', { password: LC_HASH, salt: LC_SALT }), { ok: false });
  assert.deepEqual(await verifyPassword('password', { password: LC_HASH }), { ok: false }, 'no salt, no match');
  assert.deepEqual(await verifyPassword('password', { password: LC_HASH, salt: 'other' }), { ok: false });
});

test('scrypt hashes with older parameters are upgraded', async () => {
  const weak = 'scrypt$1024$8$1$' + Buffer.from('0123456789abcdef').toString('base64') + '$';
  const { scryptSync } = await import('node:crypto');
  const key = scryptSync('pw', Buffer.from('0123456789abcdef'), 64, { N: 1024, r: 8, p: 1 }).toString('base64');
  const res = await verifyPassword('pw', { password: weak + key });
  assert.equal(res.ok, true);
  assert.match(res.upgrade ?? '', new RegExp(`^scrypt\\$${SCRYPT_PARAMS.N}\\$`));
});

test('users without a password, odd stored values and absurd costs never match', async () => {
  for (const password of [undefined, null, '', 42, { $ne: 1 }, 'scrypt$3$8$1$AAAA$AAAA', 'scrypt$1073741824$8$1$AAAA$AAAA']) {
    assert.deepEqual(await verifyPassword('x', { password }), { ok: false }, JSON.stringify(password));
  }
  assert.equal(isPasswordSet({}), false);
  assert.equal(isPasswordSet({ password: 'scrypt$...' }), true);
});
