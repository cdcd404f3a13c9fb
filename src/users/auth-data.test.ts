import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAuthData, parseAuthDataChange, parseAuthEntry, unionKey } from './auth-data.ts';
import { thrownCode } from '../../test/support/thrown-code.ts';

test('anonymous entries bind by id', () => {
  const e = parseAuthEntry('anonymous', { id: '3f2a9c1e0b7d4e5f8a6b2c1d0e9f8a7b' });
  assert.deepEqual([e.platform, e.uid], ['anonymous', '3f2a9c1e0b7d4e5f8a6b2c1d0e9f8a7b']);
  assert.equal(thrownCode(() => parseAuthEntry('anonymous', {})), 250);
});

test('generic platforms need uid (250) and access_token (251); extras are kept', () => {
  const e = parseAuthEntry('github', { uid: '42', access_token: 't', expires_in: 7200 });
  assert.equal(e.uid, '42');
  assert.deepEqual(e.data, { uid: '42', access_token: 't', expires_in: 7200 });
  assert.equal(thrownCode(() => parseAuthEntry('github', { access_token: 't' })), 250);
  assert.equal(thrownCode(() => parseAuthEntry('github', { uid: '', access_token: 't' })), 250);
  assert.equal(thrownCode(() => parseAuthEntry('github', { uid: '42' })), 251);
});

test('lc_apple needs uid, identity_token and code', () => {
  assert.equal(parseAuthEntry('lc_apple', { uid: 'a', identity_token: 'i', code: 'c' }).uid, 'a');
  assert.equal(thrownCode(() => parseAuthEntry('lc_apple', { uid: 'a', code: 'c' })), 251);
  assert.equal(thrownCode(() => parseAuthEntry('lc_apple', { uid: 'a', identity_token: 'i' })), 251);
  assert.equal(thrownCode(() => parseAuthEntry('lc_apple', { identity_token: 'i', code: 'c' })), 250);
});

test('the game-platform form binds by openid and may carry a unionid', () => {
  const e = parseAuthEntry('taptap', { kid: 'k', access_token: 'k', openid: 'o1', unionid: 'u1', platform: 'tap', main_account: true });
  assert.equal(e.uid, 'o1');
  assert.deepEqual(e.union, { platform: 'tap', unionid: 'u1', main: true });
  assert.equal(unionKey('tap'), '_tap_unionid');
  const noMain = parseAuthEntry('wx', { openid: 'o', access_token: 't', unionid: 'u', platform: 'weixin' });
  assert.equal(noMain.union?.main, false);
  assert.equal(parseAuthEntry('wx', { openid: 'o', access_token: 't', unionid: 'u' }).union, undefined);
});

test('operator injection and other non-strings in identifying members are 400, never a lookup', () => {
  for (const bad of [{ $ne: null }, ['a'], 5, true, null]) {
    assert.equal(thrownCode(() => parseAuthEntry('github', { uid: bad, access_token: 't' })), 1, JSON.stringify(bad));
    assert.equal(thrownCode(() => parseAuthEntry('github', { uid: 'u', access_token: bad })), 1);
    assert.equal(thrownCode(() => parseAuthEntry('anonymous', { id: bad })), 1);
    assert.equal(thrownCode(() => parseAuthEntry('wx', { openid: 'o', access_token: 't', unionid: bad, platform: 'weixin' })), 1);
  }
  assert.equal(thrownCode(() => parseAuthEntry('wx', { openid: 'o', access_token: 't', main_account: 'yes' })), 1);
});

test('platform names are plain names; server keys and prototype keys are refused', () => {
  for (const name of ['_weixin_unionid', '__proto__', 'constructor', 'a.b', '', '$ne', 'x'.repeat(65)]) {
    assert.equal(thrownCode(() => parseAuthEntry(name, { uid: 'u', access_token: 't' })), 1, name);
  }
  assert.equal(thrownCode(() => parseAuthEntry('github', 'x')), 1);
  assert.equal(thrownCode(() => parseAuthData({})), 250);
  assert.equal(thrownCode(() => parseAuthData([])), 1);
  assert.equal(thrownCode(() => parseAuthData(null)), 1);
});

test('parseAuthData parses every platform', () => {
  const entries = parseAuthData({ anonymous: { id: 'x1' }, github: { uid: 'g', access_token: 't' } });
  assert.deepEqual(entries.map((e) => [e.platform, e.uid]), [['anonymous', 'x1'], ['github', 'g']]);
});

test('updates link with objects and unlink with Delete or null', () => {
  const c = parseAuthDataChange({ github: { uid: 'g', access_token: 't' }, qq: null }, { weibo: { __op: 'Delete' } });
  assert.deepEqual(c.link.map((e) => e.platform), ['github']);
  assert.deepEqual(c.unlink, ['qq', 'weibo']);
  assert.equal(thrownCode(() => parseAuthDataChange({ github: { uid: 'g', access_token: 't' } }, { github: { __op: 'Delete' } })), 1);
  assert.equal(thrownCode(() => parseAuthDataChange(undefined, { 'weibo.uid': 'x' })), 1);
  assert.equal(thrownCode(() => parseAuthDataChange('x', {})), 1);
});
