import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { nextTick, parseScheduleSpec } from './schedule-spec.ts';

test('a 5-field expression ticks on minutes, a 6-field one on seconds, in the given time zone', () => {
  const at = new Date('2026-03-01T10:07:30Z');
  assert.equal(nextTick('*/15 * * * *', 'UTC', at).toISOString(), '2026-03-01T10:15:00.000Z');
  assert.equal(nextTick('*/10 * * * * *', 'UTC', at).toISOString(), '2026-03-01T10:07:40.000Z');
  assert.equal(nextTick('0 0 8 * * ?', 'Asia/Shanghai', at).toISOString(), '2026-03-02T00:00:00.000Z');
});

test('defaults: UTC, production, enabled, no params; a change keeps what it does not name', () => {
  const s = parseScheduleSpec({ function: 'daily', cron: '0 3 * * *' });
  assert.deepEqual(s, { functionName: 'daily', cron: '0 3 * * *', timezone: 'UTC', params: {}, production: true, enabled: true });
  const changed = parseScheduleSpec({ enabled: false, params: { a: 1 } }, s);
  assert.deepEqual(changed, { ...s, enabled: false, params: { a: 1 } });
});

test('bad schedules are refused with invalidSchedule', () => {
  const cases: unknown[] = [
    null,
    [],
    { cron: '* * * * *' },
    { function: '../x', cron: '* * * * *' },
    { function: 'f' },
    { function: 'f', cron: 'every day' },
    { function: 'f', cron: '* * * *' },
    { function: 'f', cron: '0 0 0 * * ? 2030' },
    { function: 'f', cron: '61 * * * *' },
    { function: 'f', cron: '* * * * *', timezone: 'Mars/Olympus' },
    { function: 'f', cron: '* * * * *', params: [1] },
    { function: 'f', cron: '* * * * *', production: 'yes' },
    { function: 'f', cron: '* * * * *', extra: 1 },
    { function: 'f', cron: '0 0 30 2 *' },
  ];
  for (const c of cases) assert.throws(() => parseScheduleSpec(c), (e: unknown) => e instanceof ApiError && e.errorName === 'invalidSchedule', JSON.stringify(c));
});
