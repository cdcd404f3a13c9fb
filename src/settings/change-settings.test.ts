import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { DEFAULT_SETTINGS } from './app-settings.ts';
import { parseSettingsChange } from './change-settings.ts';

function refused(change: unknown): void {
  assert.throws(() => parseSettingsChange(change, DEFAULT_SETTINGS), (e) => isApiError(e) && e.code === 1 && e.status === 400, JSON.stringify(change));
}

test('known keys with the type of their default are accepted; null resets', () => {
  assert.deepEqual(parseSettingsChange({ includeACLInQueries: true }, DEFAULT_SETTINGS), { includeACLInQueries: true });
  assert.deepEqual(parseSettingsChange({ includeACLInQueries: null }, { ...DEFAULT_SETTINGS, includeACLInQueries: true }), { includeACLInQueries: false });
  assert.deepEqual(parseSettingsChange({}, DEFAULT_SETTINGS), {});
});

test('unknown keys, wrong types and non-objects are refused', () => {
  for (const change of [{ nope: 1 }, { includeACLInQueries: 'true' }, { includeACLInQueries: 0 }, { includeACLInQueries: [] }, [], 'x', null, JSON.parse('{"__proto__":{"a":1}}')]) refused(change);
});

test('every setting has a default of a type the validator understands', () => {
  for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
    // Setting each key to its own default must pass: the admin endpoint can always restore it.
    assert.doesNotThrow(() => parseSettingsChange({ [key]: value }, DEFAULT_SETTINGS), key);
  }
});

test('object settings (emailTexts) merge key by key; their keys and types are checked', () => {
  const first = parseSettingsChange({ emailTexts: { appName: 'Pantry' } }, DEFAULT_SETTINGS);
  assert.equal(first.emailTexts?.appName, 'Pantry');
  assert.equal(first.emailTexts?.pageLang, DEFAULT_SETTINGS.emailTexts.pageLang, 'other texts kept');
  const current = { ...DEFAULT_SETTINGS, emailTexts: { ...DEFAULT_SETTINGS.emailTexts, appName: 'Pantry', pageLang: 'de' } };
  const second = parseSettingsChange({ emailTexts: { pageLang: null } }, current);
  assert.equal(second.emailTexts?.appName, 'Pantry', 'earlier change kept');
  assert.equal(second.emailTexts?.pageLang, DEFAULT_SETTINGS.emailTexts.pageLang, 'null resets one key');
  refused({ emailTexts: { nope: 'x' } });
  refused({ emailTexts: { appName: 5 } });
  refused({ emailTexts: 'x' });
});

test('friend settings: closed choices, and the friend model is chosen once for good', () => {
  assert.deepEqual(parseSettingsChange({ friendModel: 'mutual' }, DEFAULT_SETTINGS), { friendModel: 'mutual' });
  assert.deepEqual(parseSettingsChange({ friendshipACL: 'private' }, DEFAULT_SETTINGS), { friendshipACL: 'private' });
  refused({ friendModel: 'both' });
  refused({ friendshipACL: 'friends' });
  const chosen = { ...DEFAULT_SETTINGS, friendModel: 'follow' as const };
  assert.deepEqual(parseSettingsChange({ friendModel: 'follow' }, chosen), { friendModel: 'follow' }, 'same value again is harmless');
  for (const change of [{ friendModel: 'mutual' }, { friendModel: null }]) {
    assert.throws(() => parseSettingsChange(change, chosen), (e) => isApiError(e) && /cannot be changed/.test(e.message), JSON.stringify(change));
  }
});
