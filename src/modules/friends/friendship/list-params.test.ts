import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../module-api/errors.ts';
import { DEFAULT_PAGE, MAX_PAGE, parseListParams } from './list-params.ts';

test('defaults: first page of 50, newest first', () => {
  assert.deepEqual(parseListParams({}), { offset: 0, size: DEFAULT_PAGE, sort: { kind: 'recent' }, lang: undefined });
});

test('the SDK names and the doc aliases', () => {
  assert.deepEqual(parseListParams({ limit: '20', skip: '40', sort_field: 'online' }), { offset: 40, size: 20, sort: { kind: 'online' }, lang: undefined });
  assert.deepEqual(parseListParams({ size: '5', cursor: '10', sort: 'rich_presence_score', lang: 'zh_CN' }), { offset: 10, size: 5, sort: { kind: 'presence', field: 'score' }, lang: 'zh_CN' });
  assert.equal(parseListParams({ limit: String(MAX_PAGE) }).size, MAX_PAGE);
});

test('bad values are 102, never silently replaced', () => {
  for (const q of [{ limit: '0' }, { limit: String(MAX_PAGE + 1) }, { limit: 'ten' }, { skip: '-1' }, { skip: '1.5' }, { sort_field: 'name' }, { sort_field: 'rich_presence_' }, { sort_field: 'rich_presence_a.b' }]) {
    assert.throws(() => parseListParams(q), (e: unknown) => e instanceof ApiError && e.code === 102, JSON.stringify(q));
  }
});
