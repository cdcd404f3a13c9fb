import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newSessionToken, plausibleSessionToken, randomToken, randomUsername, TOKEN_LENGTH } from './session-token.ts';

test('session tokens and usernames are 25 characters of [a-z0-9]', () => {
  for (let i = 0; i < 200; i++) {
    assert.match(newSessionToken(), /^[a-z0-9]{25}$/);
    assert.match(randomUsername(), /^[a-z0-9]{25}$/);
  }
  assert.equal(TOKEN_LENGTH, 25);
  assert.match(randomToken(48), /^[a-z0-9]{48}$/);
});

test('tokens do not repeat and use the whole alphabet evenly', () => {
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  for (let i = 0; i < 4000; i++) {
    const t = newSessionToken();
    assert.ok(!seen.has(t));
    seen.add(t);
    for (const c of t) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  assert.equal(counts.size, 36);
  // 100,000 characters over 36 symbols: about 2,778 each; a biased generator drifts far more.
  for (const [c, n] of counts) assert.ok(n > 2400 && n < 3150, `${c}: ${n}`);
});

test('plausibleSessionToken refuses non-strings and absurd lengths', () => {
  assert.equal(plausibleSessionToken(newSessionToken()), true);
  for (const v of [undefined, '', 5, { $ne: '' }, 'x'.repeat(257)]) assert.equal(plausibleSessionToken(v), false);
});
