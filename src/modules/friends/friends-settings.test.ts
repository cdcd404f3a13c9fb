import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../../errors/api-error.ts';
import { defaultSettings } from '../../settings/app-settings.ts';
import { parseSettingsChange } from '../../admin/change-settings.ts';
import { friendsSettings } from './friends-settings.ts';

function refused(change: unknown, current = defaultSettings()): void {
  assert.throws(() => parseSettingsChange(change, current), (e) => isApiError(e) && e.code === 1 && e.status === 400, JSON.stringify(change));
}

test('friends settings are in the catalogue with their defaults', () => {
  const s = friendsSettings({ settings: defaultSettings() });
  assert.equal(s.richPresenceSync, false);
  assert.equal(s.friendModel, '');
  assert.equal(s.friendsLeaseMs, 30_000);
});

test('friend settings: closed choices, ranges, the URL rule, and the friend model is chosen once for good', () => {
  assert.deepEqual(parseSettingsChange({ friendModel: 'mutual' }, defaultSettings()), { friendModel: 'mutual' });
  assert.deepEqual(parseSettingsChange({ friendshipACL: 'private' }, defaultSettings()), { friendshipACL: 'private' });
  refused({ friendModel: 'both' });
  refused({ friendshipACL: 'friends' });
  refused({ friendsLeaseMs: 999 });
  refused({ friendsWebSocketUrl: 'http://x' });
  assert.deepEqual(parseSettingsChange({ friendsWebSocketUrl: 'wss://x.test/ws' }, defaultSettings()), { friendsWebSocketUrl: 'wss://x.test/ws' });
  const chosen = { ...defaultSettings(), friendModel: 'follow' };
  assert.deepEqual(parseSettingsChange({ friendModel: 'follow' }, chosen), { friendModel: 'follow' }, 'same value again is harmless');
  for (const change of [{ friendModel: 'mutual' }, { friendModel: null }]) {
    assert.throws(() => parseSettingsChange(change, chosen), (e) => isApiError(e) && /cannot be changed/.test(e.message), JSON.stringify(change));
  }
});
