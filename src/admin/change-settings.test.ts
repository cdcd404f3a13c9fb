import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../errors/api-error.ts';
import { defaultSettings } from '../settings/app-settings.ts';
import { parseSettingsChange } from './change-settings.ts';
import { declareSettings, invalidSetting, settingCatalogue } from '../settings/setting-catalogue.ts';

// A module's way in: declared settings with choices, a range and an own rule ("chosen once").
declareSettings('test-module', {
  testColour: { default: '', choices: ['red', 'blue'], doc: 'test', check: (v: string, current: string) => { if (current !== '' && v !== current) throw invalidSetting('testColour cannot be changed'); } },
  testCount: { default: 5, range: [1, 9], doc: 'test' },
});
const DEFAULT_SETTINGS = defaultSettings();

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

test('declared settings: closed choices, ranges and the owner\'s own rule', () => {
  assert.deepEqual(parseSettingsChange({ testColour: 'red', testCount: 9 }, DEFAULT_SETTINGS), { testColour: 'red', testCount: 9 });
  refused({ testColour: 'green' });
  refused({ testCount: 10 });
  refused({ testCount: 1.5 });
  const chosen = { ...DEFAULT_SETTINGS, testColour: 'blue' };
  assert.deepEqual(parseSettingsChange({ testColour: 'blue' }, chosen), { testColour: 'blue' }, 'same value again is harmless');
  for (const change of [{ testColour: 'red' }, { testColour: null }]) {
    assert.throws(() => parseSettingsChange(change, chosen), (e) => isApiError(e) && /cannot be changed/.test(e.message), JSON.stringify(change));
  }
});

test('the catalogue: one entry per setting, each with a doc; a name is owned once', () => {
  const keys = settingCatalogue().map((e) => e.key);
  assert.equal(new Set(keys).size, keys.length);
  for (const e of settingCatalogue()) assert.ok(e.spec.doc.length > 0, e.key);
  assert.throws(() => declareSettings('another-module', { testCount: { default: 1, doc: 'x' } }), /already declared/);
});
