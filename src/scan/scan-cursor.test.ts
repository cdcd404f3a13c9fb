import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CURSOR_TTL_MS, signCursor, verifyCursor } from './scan-cursor.ts';

const SECRET = 'a'.repeat(64);
const NOW = 1_700_000_000_000;
const state = { className: 'Post', scanKey: '-createdAt', lastValue: '2024-01-01T00:00:00.123456+00:00', lastId: 'abc123', issuedAt: NOW };

function code(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { code: number; message: string };
    return { code: err.code, message: err.message };
  }
  throw new Error('expected an error');
}

test('a signed cursor verifies and gives back its state', () => {
  const c = signCursor(SECRET, state);
  assert.deepEqual(verifyCursor(SECRET, c, { className: 'Post', scanKey: '-createdAt', now: NOW + 1000 }), state);
  assert.match(c, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
});

test('a null last value survives the round trip', () => {
  const c = signCursor(SECRET, { ...state, lastValue: null });
  assert.equal(verifyCursor(SECRET, c, { className: 'Post', scanKey: '-createdAt', now: NOW }).lastValue, null);
});

test('tampered, forged and foreign cursors are refused with 102', () => {
  const c = signCursor(SECRET, state);
  const [payload, mac] = c.split('.');
  const other = Buffer.from(JSON.stringify(['Post', '-createdAt', '2000-01-01', 'zzz', NOW])).toString('base64url');
  const cases: [string, string, RegExp][] = [
    ['altered payload', `${other}.${mac}`, /signature/],
    ['altered signature', `${payload}.${mac.slice(0, -2)}xx`, /signature/],
    ['other secret', signCursor('b'.repeat(64), state), /signature/],
    ['no dot', 'abcdef', /malformed/],
    ['garbage', '..', /malformed/],
    ['too long', 'x'.repeat(5000), /too long/],
  ];
  for (const [name, cursor, msg] of cases) {
    const err = code(() => verifyCursor(SECRET, cursor, { className: 'Post', scanKey: '-createdAt', now: NOW }));
    assert.equal(err.code, 102, name);
    assert.match(err.message, msg, name);
  }
});

test('a cursor is bound to its class and scan key', () => {
  const c = signCursor(SECRET, state);
  assert.match(code(() => verifyCursor(SECRET, c, { className: 'Other', scanKey: '-createdAt', now: NOW })).message, /class 'Post'/);
  assert.match(code(() => verifyCursor(SECRET, c, { className: 'Post', scanKey: 'createdAt', now: NOW })).message, /scan_key '-createdAt'/);
});

test('a cursor expires after 10 minutes', () => {
  const c = signCursor(SECRET, state);
  assert.ok(verifyCursor(SECRET, c, { className: 'Post', scanKey: '-createdAt', now: NOW + CURSOR_TTL_MS }));
  const err = code(() => verifyCursor(SECRET, c, { className: 'Post', scanKey: '-createdAt', now: NOW + CURSOR_TTL_MS + 1 }));
  assert.equal(err.code, 102);
  assert.match(err.message, /expired/);
});
