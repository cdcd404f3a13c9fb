import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideAttempt, LOCK_THRESHOLD, LOCK_WINDOW_MS } from './login-lock.ts';

const MIN = 60 * 1000;

/** Plays a series of failed attempts at the given minutes; returns the verdicts. */
function play(minutes: readonly number[]): string[] {
  let recent: number[] = [];
  return minutes.map((m) => {
    const d = decideAttempt(recent, m * MIN);
    recent = d.recent;
    return d.verdict;
  });
}

test('six failures are tries, the seventh within 15 minutes is the last, then locked', () => {
  assert.equal(LOCK_THRESHOLD, 7);
  assert.equal(LOCK_WINDOW_MS, 15 * MIN);
  assert.deepEqual(play([0, 1, 2, 3, 4, 5, 6, 7, 8]), ['try', 'try', 'try', 'try', 'try', 'try', 'last', 'locked', 'locked']);
});

test('the lock ends 15 minutes after the last failure, and attempts while locked do not extend it', () => {
  // failures at 0..6 lock; attempts at 10 and 20 are refused without moving the window.
  assert.deepEqual(play([0, 1, 2, 3, 4, 5, 6, 10, 20, 21.01]), ['try', 'try', 'try', 'try', 'try', 'try', 'last', 'locked', 'locked', 'try']);
  // Exactly at 15 minutes after the last failure the lock is over.
  assert.deepEqual(play([0, 1, 2, 3, 4, 5, 6, 21]).at(-1), 'try');
  assert.deepEqual(play([0, 1, 2, 3, 4, 5, 6, 20.99]).at(-1), 'locked');
});

test('seven failures spread over more than 15 minutes do not lock (sliding window)', () => {
  assert.deepEqual(play([0, 3, 6, 9, 12, 15, 18, 19]), ['try', 'try', 'try', 'try', 'try', 'try', 'try', 'try']);
  // ...but the latest seven inside one window do.
  assert.deepEqual(play([0, 10, 11, 12, 13, 14, 15, 16]).slice(-2), ['last', 'locked']);
});

test('after the lock expires, it takes seven fresh failures to lock again', () => {
  const v = play([0, 1, 2, 3, 4, 5, 6, 30, 31, 32, 33, 34, 35, 36]);
  assert.deepEqual(v.slice(7), ['try', 'try', 'try', 'try', 'try', 'try', 'last']);
});
