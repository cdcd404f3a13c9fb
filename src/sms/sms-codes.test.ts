import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashSmsCode, newSmsCode } from './sms-codes.ts';

test('codes are six digits, leading zeros kept, and spread over the whole range', () => {
  const seen = new Set<string>();
  let low = 0;
  for (let i = 0; i < 2000; i++) {
    const c = newSmsCode();
    assert.match(c, /^[0-9]{6}$/);
    seen.add(c);
    if (c < '100000') low++;
  }
  assert.ok(seen.size > 1990, 'codes repeat far too often');
  // About 10% start with 0; far fewer would mean the padding or the range is wrong.
  assert.ok(low > 100 && low < 320, `codes below 100000: ${low}`);
});

test('the stored hash is a fixed sha256 that does not contain the code', () => {
  assert.equal(hashSmsCode('123456'), hashSmsCode('123456'));
  assert.notEqual(hashSmsCode('123456'), hashSmsCode('123457'));
  assert.match(hashSmsCode('123456'), /^[0-9a-f]{64}$/);
  assert.ok(!hashSmsCode('123456').includes('123456'));
});
