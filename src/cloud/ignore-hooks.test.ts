import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ignoredHooks, signHookSkip, type IgnoreContext } from './ignore-hooks.ts';

const NOW = 1_800_000_000_000;
const base: IgnoreContext = { master: false, appHookKey: 'hook-key', masterKey: 'master-key', windowMs: 15 * 60 * 1000, nowMs: NOW };
const names = (s: ReadonlySet<string>) => [...s].sort();

test('__ignore_hooks counts only with the master key or the right hook key', () => {
  const flags = { __ignore_hooks: ['beforeSave', 'afterSave'] };
  assert.deepEqual(names(ignoredHooks(flags, 'Review', base)), []);
  assert.deepEqual(names(ignoredHooks(flags, 'Review', { ...base, hookKey: 'wrong' })), []);
  assert.deepEqual(names(ignoredHooks(flags, 'Review', { ...base, hookKey: 'hook-key' })), ['afterSave', 'beforeSave']);
  assert.deepEqual(names(ignoredHooks(flags, 'Review', { ...base, master: true })), ['afterSave', 'beforeSave']);
});

test('unknown names and non-arrays in __ignore_hooks are ignored', () => {
  const c = { ...base, master: true };
  assert.deepEqual(names(ignoredHooks({ __ignore_hooks: ['onLogin', 3, null, 'beforeDelete'] }, 'A', c)), ['beforeDelete']);
  assert.deepEqual(names(ignoredHooks({ __ignore_hooks: 'beforeSave' }, 'A', c)), []);
  assert.deepEqual(names(ignoredHooks({ __ignore_hooks: { beforeSave: true } }, 'A', c)), []);
});

test('legacy __before/__after: a fresh HMAC-SHA1 of the class hook name with the master key', () => {
  const before = signHookSkip('master-key', '__before_for_Review', NOW - 1000);
  const after = signHookSkip('master-key', '__after_for_Review', NOW);
  assert.deepEqual(names(ignoredHooks({ __before: before }, 'Review', base)), ['beforeDelete', 'beforeSave', 'beforeUpdate']);
  assert.deepEqual(names(ignoredHooks({ __after: after }, 'Review', base)), ['afterDelete', 'afterSave', 'afterUpdate']);
});

test('legacy signatures of another class, another key, an old time or garbage skip nothing', () => {
  const cases = [
    signHookSkip('master-key', '__before_for_Other', NOW),
    signHookSkip('other-key', '__before_for_Review', NOW),
    signHookSkip('master-key', '__before_for_Review', NOW - 16 * 60 * 1000),
    signHookSkip('master-key', '__after_for_Review', NOW),
    'garbage',
    `${NOW},`,
    ',abc',
    12345,
  ];
  for (const v of cases) assert.deepEqual(names(ignoredHooks({ __before: v }, 'Review', base)), [], String(v));
});
