import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HITS_TO_RELAX, IncludedCache, MAX_CACHED_CHARS, MAX_CACHED_DOCUMENT, MAX_CACHED_OBJECTS, MAX_TEXT_STREAK, type VersionedRow } from './included-cache.ts';

function row(objectId: string, version: string, data_text = '{"a": 1}'): VersionedRow {
  return { objectId, version, createdAt: '2026-11-27 00:00:00+00', updatedAt: '2026-11-27 00:00:00+00', data_text };
}

test('an object is found only at the version it was kept at, and under its head', () => {
  const c = new IncludedCache();
  c.put('s\u0000_User\u0000password', row('u1', '100:(0,1)'));
  assert.equal(c.get('s\u0000_User\u0000password', 'u1', '100:(0,1)')?.data_text, '{"a": 1}');
  assert.equal(c.get('s\u0000_User\u0000password', 'u1', '101:(0,1)'), undefined, 'another xmin');
  assert.equal(c.get('s\u0000_User\u0000password', 'u1', '100:(0,2)'), undefined, 'another place, same transaction');
  assert.equal(c.get('s\u0000_User\u0000password\u0000email', 'u1', '100:(0,1)'), undefined, 'other fields left out: another head');
  assert.equal(c.get('t\u0000_User\u0000password', 'u1', '100:(0,1)'), undefined, 'another schema');
  // A newer version replaces the older one.
  c.put('s\u0000_User\u0000password', row('u1', '102:(0,3)', '{"a": 2}'));
  assert.equal(c.get('s\u0000_User\u0000password', 'u1', '100:(0,1)'), undefined);
  assert.equal(c.get('s\u0000_User\u0000password', 'u1', '102:(0,3)')?.data_text, '{"a": 2}');
  assert.equal(c.size, 1);
});

test('the cache keeps at most MAX_CACHED_OBJECTS objects and MAX_CACHED_CHARS characters, dropping the oldest; a large document is not kept', () => {
  const c = new IncludedCache();
  for (let i = 0; i < MAX_CACHED_OBJECTS + 10; i++) c.put('h', row(`o${i}`, '1:(0,1)'));
  assert.equal(c.size, MAX_CACHED_OBJECTS);
  assert.equal(c.get('h', 'o0', '1:(0,1)'), undefined, 'the oldest went first');
  assert.ok(c.get('h', `o${MAX_CACHED_OBJECTS + 9}`, '1:(0,1)'));

  const big = new IncludedCache();
  const doc = `{"x": "${'y'.repeat(MAX_CACHED_DOCUMENT - 10)}"}`;
  const fit = Math.floor(MAX_CACHED_CHARS / doc.length);
  for (let i = 0; i < fit + 3; i++) big.put('h', row(`o${i}`, '1:(0,1)', doc));
  assert.equal(big.size, fit, 'bounded by characters');
  big.put('h', row('huge', '1:(0,1)', `{"x": "${'y'.repeat(MAX_CACHED_DOCUMENT)}"}`));
  assert.equal(big.get('h', 'huge', '1:(0,1)'), undefined, 'a document over MAX_CACHED_DOCUMENT is not kept');
  // Replacing a kept object by a version too large to keep drops the old one.
  big.put('h', row(`o${fit + 2}`, '2:(0,1)', `{"x": "${'y'.repeat(MAX_CACHED_DOCUMENT)}"}`));
  assert.equal(big.get('h', `o${fit + 2}`, '1:(0,1)'), undefined);
});

test('a head reads versions only after a statement found all its objects kept; misses while reading versions make it wait longer', () => {
  const c = new IncludedCache();
  assert.equal(c.isWarm('h'), false);
  c.read('h', false, false);
  assert.equal(c.isWarm('h'), false, 'an object was new');
  c.read('h', false, true);
  assert.equal(c.isWarm('h'), true, 'all kept');
  c.read('h', true, true);
  assert.equal(c.isWarm('h'), true);
  // A miss while reading versions: two statements in a row with all kept are needed now, then four.
  c.read('h', true, false);
  assert.equal(c.isWarm('h'), false);
  c.read('h', false, true);
  assert.equal(c.isWarm('h'), false);
  c.read('h', false, true);
  assert.equal(c.isWarm('h'), true);
  c.read('h', true, false);
  for (let i = 0; i < 3; i++) c.read('h', false, true);
  assert.equal(c.isWarm('h'), false);
  c.read('h', false, true);
  assert.equal(c.isWarm('h'), true);
  // Never more than MAX_TEXT_STREAK.
  for (let i = 0; i < 20; i++) c.read('h', true, false);
  for (let i = 0; i < MAX_TEXT_STREAK - 1; i++) c.read('h', false, true);
  assert.equal(c.isWarm('h'), false);
  c.read('h', false, true);
  assert.equal(c.isWarm('h'), true);
  // A long run of hits halves the wait again.
  for (let i = 0; i < HITS_TO_RELAX; i++) c.read('h', true, true);
  c.read('h', false, false);
  for (let i = 0; i < MAX_TEXT_STREAK / 2; i++) c.read('h', false, true);
  assert.equal(c.isWarm('h'), true);
  assert.equal(c.isWarm('other'), false, 'per head');
});
