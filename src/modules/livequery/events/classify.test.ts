import { test } from 'node:test';
import assert from 'node:assert/strict';
import { carriesUpdatedKeys, classify } from './classify.ts';

test('classify: every write kind against matched before/after', () => {
  const cases: [Parameters<typeof classify>, string | undefined][] = [
    [['create', false, true], 'create'],
    [['create', false, false], undefined],
    [['update', true, true], 'update'],
    [['update', false, true], 'enter'],
    [['update', true, false], 'leave'],
    [['update', false, false], undefined],
    [['delete', true, false], 'delete'],
    [['delete', false, false], undefined],
    [['login', false, true], 'login'],
    [['login', false, false], undefined],
  ];
  for (const [args, want] of cases) assert.equal(classify(...args), want, JSON.stringify(args));
});

test('classify: updatedKeys only on update, enter and leave', () => {
  assert.deepEqual(['create', 'update', 'enter', 'leave', 'delete', 'login'].filter((o) => carriesUpdatedKeys(o as never)), ['update', 'enter', 'leave']);
});
