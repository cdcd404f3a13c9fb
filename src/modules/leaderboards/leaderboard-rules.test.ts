import assert from 'node:assert/strict';
import { test } from 'node:test';
import { thrownCode } from '../../../test/support/thrown-code.ts';
import { checkStatisticName, choice, nextReset, periodStart, UPDATE_STRATEGIES } from './leaderboard-rules.ts';

const at = (iso: string) => new Date(iso);

test('reset times: next UTC midnight, next Monday, first of next month, none', () => {
  // 2026-11-25 is a Wednesday.
  const now = at('2026-11-25T13:45:00.000Z');
  assert.equal(nextReset('day', now)?.toISOString(), '2026-11-26T00:00:00.000Z');
  assert.equal(nextReset('week', now)?.toISOString(), '2026-11-30T00:00:00.000Z');
  assert.equal(nextReset('month', now)?.toISOString(), '2026-12-01T00:00:00.000Z');
  assert.equal(nextReset('never', now), undefined);
  // On a Monday the next weekly reset is a week later; in December the month rolls the year.
  assert.equal(nextReset('week', at('2026-11-30T00:00:00.000Z'))?.toISOString(), '2026-12-07T00:00:00.000Z');
  assert.equal(nextReset('week', at('2026-11-29T23:59:59.999Z'))?.toISOString(), '2026-11-30T00:00:00.000Z');
  assert.equal(nextReset('month', at('2026-12-31T23:00:00.000Z'))?.toISOString(), '2027-01-01T00:00:00.000Z');
});

test('period starts', () => {
  const now = at('2026-11-25T13:45:00.000Z');
  assert.equal(periodStart('day', now).toISOString(), '2026-11-25T00:00:00.000Z');
  assert.equal(periodStart('week', now).toISOString(), '2026-11-23T00:00:00.000Z');
  assert.equal(periodStart('week', at('2026-11-29T10:00:00.000Z')).toISOString(), '2026-11-23T00:00:00.000Z');
  assert.equal(periodStart('month', now).toISOString(), '2026-11-01T00:00:00.000Z');
});

test('names and choices', () => {
  assert.equal(checkStatisticName('score_1'), 'score_1');
  assert.equal(checkStatisticName('1st'), '1st');
  for (const bad of ['', '_x', 'a-b', 'a b', 'x'.repeat(129), 5, undefined]) assert.equal(thrownCode(() => checkStatisticName(bad)), 1, String(bad));
  assert.equal(choice('updateStrategy', undefined, UPDATE_STRATEGIES, 'better'), 'better');
  assert.equal(choice('updateStrategy', 'sum', UPDATE_STRATEGIES, 'better'), 'sum');
  assert.equal(thrownCode(() => choice('updateStrategy', 'best', UPDATE_STRATEGIES, 'better')), 1);
});
