import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseLangs, localize, normalizeLang } from './localize.ts';
import type { PresenceField, PresenceLang } from './presence-config.ts';

const FIELDS: PresenceField[] = [
  { key: 'display', type: 'token' },
  { key: 'score', type: 'variable' },
  { key: 'rank', type: 'variable' },
];
const LANGS: PresenceLang[] = [
  { key: 'display', lang: 'en_US', content: { '#score': '%score% points, rank %rank%', '#odd': '%missing%|%display%|100%' } },
  { key: 'display', lang: 'zh_CN', content: { '#score': '%score% 分,排名为 %rank%' } },
];

test('normalizeLang: language lower case, region upper case, scripts skipped', () => {
  assert.equal(normalizeLang('zh-cn'), 'zh_CN');
  assert.equal(normalizeLang('ZH_cn'), 'zh_CN');
  assert.equal(normalizeLang('zh-Hans-CN'), 'zh_CN');
  assert.equal(normalizeLang('fr'), 'fr');
  assert.equal(normalizeLang('*'), undefined);
  assert.equal(normalizeLang(''), undefined);
});

test('chooseLangs: lang parameter, else Accept-Language by q, else en_US', () => {
  assert.deepEqual(chooseLangs('zh-CN', 'en-US'), ['zh_CN']);
  assert.deepEqual(chooseLangs(undefined, 'fr;q=0.5, de-DE, *;q=0.1, en;q=0'), ['de_DE', 'fr']);
  assert.deepEqual(chooseLangs(undefined, undefined), ['en_US']);
  assert.deepEqual(chooseLangs('', '*'), ['en_US']);
});

test('localize: variables raw, tokens translated with %field% filled, unknown tokens ""', () => {
  const stored = { display: '#score', score: '15', rank: '150', gone: 'x' };
  assert.deepEqual(localize(stored, FIELDS, LANGS, ['zh_TW']), { display: '15 分,排名为 150', score: '15', rank: '150' });
  assert.deepEqual(localize(stored, FIELDS, LANGS, ['de_DE', 'en_GB']), { display: '15 points, rank 150', score: '15', rank: '150' });
  assert.deepEqual(localize(stored, FIELDS, LANGS, ['ja_JP']).display, '');
  assert.deepEqual(localize({ display: '#nope' }, FIELDS, LANGS, ['en_US']), { display: '' });
  // References to unset or non-variable fields become ""; a lone % stays.
  assert.deepEqual(localize({ display: '#odd' }, FIELDS, LANGS, ['en_US']), { display: '||100%' });
});
