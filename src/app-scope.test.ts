import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppScope, appSlot } from './app-scope.ts';
import { defaultSettings } from './settings/app-settings.ts';

const A = appSlot<{ n: number }>('test.a');
const B = appSlot<string>('test.b');

test('slots: one value per slot and scope, made once by ensure', () => {
  const s = new AppScope(defaultSettings());
  const other = new AppScope(defaultSettings());
  let made = 0;
  const a = s.ensure(A, () => ({ n: ++made }));
  assert.equal(s.ensure(A, () => ({ n: ++made })), a);
  assert.equal(made, 1);
  assert.equal(other.get(A), undefined, 'two apps stay apart');
  assert.equal(s.get(B), undefined);
});

test('release takes back only the value it names, without disposing it', async () => {
  const s = new AppScope(defaultSettings());
  const disposed: string[] = [];
  s.put(B, 'one', () => void disposed.push('one'));
  s.release(B, 'two');
  assert.equal(s.get(B), 'one', 'another value is left alone');
  s.release(B, 'one');
  assert.equal(s.get(B), undefined);
  await s.close();
  assert.deepEqual(disposed, [], 'a released value is its owner\'s to stop');
});

test('close disposes newest first, runs every disposer despite failures, then throws the first', async () => {
  const s = new AppScope(defaultSettings());
  const order: string[] = [];
  s.onClose(() => void order.push('onClose 1'));
  s.put(A, { n: 1 }, () => void order.push('A'));
  s.ensure(B, () => 'b', async (v) => {
    order.push(v);
    throw new Error('b failed');
  });
  s.onClose(() => void order.push('onClose 2'));
  await assert.rejects(s.close(), /b failed/);
  assert.deepEqual(order, ['b', 'A', 'onClose 2', 'onClose 1']);
  assert.equal(s.closed, true);
  assert.equal(s.get(A), undefined);
  await s.close();
  assert.equal(order.length, 4, 'idempotent');
  assert.throws(() => s.put(B, 'late'), /app closed/, 'nothing can be acquired after close');
});

test('settings: an immutable snapshot, replaced whole, watchers told', () => {
  const s = new AppScope(defaultSettings());
  const before = s.settings;
  assert.ok(Object.isFrozen(before));
  assert.throws(() => {
    (before as { emailVerification: boolean }).emailVerification = !before.emailVerification;
  }, TypeError);
  const heard: [boolean, boolean][] = [];
  const stop = s.onSettingsChanged((next, prev) => heard.push([next.emailVerification, prev.emailVerification]));
  s.replaceSettings({ ...before, emailVerification: !before.emailVerification });
  assert.notEqual(s.settings, before);
  assert.equal(s.settings.emailVerification, !before.emailVerification);
  stop();
  s.replaceSettings(before);
  assert.deepEqual(heard, [[!before.emailVerification, before.emailVerification]]);
});
