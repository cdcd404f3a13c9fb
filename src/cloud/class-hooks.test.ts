import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateReplacement } from './class-hooks.ts';

const stored = { objectId: 'a1', stars: 2, comment: 'old', tags: ['x'], createdAt: '2026-01-01T00:00:00.000Z' };

test('a hook that changes nothing leaves the update as the client sent it', () => {
  const sent = { comment: 'new' };
  assert.equal(updateReplacement(sent, stored, { ...stored, ...sent, _updatedKeys: ['comment'] }), undefined);
});

test("the hook's new fields and changed values are added; the client's operations are kept", () => {
  const sent = { stars: { __op: 'Increment', amount: 1 }, comment: 'new' };
  const answer = { ...stored, stars: { __op: 'Increment', amount: 1 }, comment: 'NEW', byHook: 1, updatedAt: 'x', _updatedKeys: ['stars', 'comment'] };
  assert.deepEqual(updateReplacement(sent, stored, answer), { stars: { __op: 'Increment', amount: 1 }, comment: 'NEW', byHook: 1 });
});

test('stored fields the hook echoes back unchanged are not rewritten; server keys never are', () => {
  const sent = { comment: 'new' };
  const answer = { ...stored, comment: 'new', objectId: 'other', createdAt: 'now', tags: ['x'] };
  assert.equal(updateReplacement(sent, stored, answer), undefined);
  assert.deepEqual(updateReplacement(sent, stored, { ...answer, tags: ['x', 'y'] }), { comment: 'new', tags: ['x', 'y'] });
});
