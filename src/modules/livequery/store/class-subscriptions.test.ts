import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseWhere } from '../../../query/parse-where.ts';
import { rowOf } from '../events/object-state.ts';
import { mayMatch } from '../events/prefilter.ts';
import { ClassSubscriptions } from './class-subscriptions.ts';
import type { LiveSubscription } from './subscription-registry.ts';

const values = fc.oneof(fc.constantFrom('a', 'b', '1', ''), fc.constantFrom(0, 1, 2), fc.boolean());
const fieldVal = fc.oneof(values, fc.constant(null), fc.array(values, { maxLength: 2 }), fc.constant({ __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }));
const field = fc.constantFrom('room', 'kind', 'objectId');
const leaf = fc.tuple(field, values).map(([f, v]) => ({ [f]: v }));
const whereArb = fc.oneof(
  leaf,
  fc.tuple(leaf, leaf).map(([a, b]) => ({ ...a, ...b })),
  fc.tuple(leaf, leaf).map(([a, b]) => ({ $or: [a, b] })),
  fc.tuple(field, values).map(([f, v]) => ({ [f]: { $ne: v } })),
  fc.constant({}),
);
const objectArb = fc.record({ objectId: fc.constantFrom('a', 'b', 'x'), room: fieldVal, kind: fieldVal }, { requiredKeys: ['objectId'] });

function sub(i: number, where: Record<string, unknown>): LiveSubscription {
  return { queryId: `q${i}`, subscriptionId: 's', className: 'C', whereKey: JSON.stringify(where), condition: parseWhere(where), returnACL: false, viewKey: '' };
}

test('class subscriptions: the index keeps every subscription the prefilter keeps', () => {
  fc.assert(
    fc.property(fc.array(whereArb, { maxLength: 12 }), fc.array(objectArb, { minLength: 1, maxLength: 2 }), fc.nat(12), (wheres, objects, removeAt) => {
      const set = new ClassSubscriptions();
      const subs = wheres.map((w, i) => sub(i, w));
      for (const s of subs) set.add(s);
      const kept = subs.filter((_, i) => i !== removeAt);
      if (removeAt < subs.length) assert.equal(set.remove(`q${removeAt}`), true);
      assert.equal(set.size, kept.length);
      const rows = objects.map((o) => rowOf(o));
      const got = set.candidates(rows);
      for (const s of kept) if (rows.some((r) => mayMatch(s.condition, r))) assert.ok(got.has(s), `${s.whereKey} dropped for ${JSON.stringify(objects)}`);
      for (const s of got) assert.ok(kept.includes(s), 'a removed subscription came back');
    }),
    { numRuns: 2000, seed: 914 },
  );
});

test('class subscriptions: a write looks only at its room', () => {
  const set = new ClassSubscriptions();
  for (let i = 0; i < 1000; i++) set.add(sub(i, { room: `r${i % 100}` }));
  set.add(sub(1000, { $or: [{ room: 'r1' }, { room: 'r2' }] }));
  const got = set.candidates([rowOf({ objectId: 'o', room: 'r7' })]);
  assert.equal(got.size, 11);
  assert.equal(set.candidates([rowOf({ objectId: 'o' })]).size, 1);
});
