/**
 * LiveQuery matching gives the query's answer: over generated objects and generated wheres
 * (fast-check), evaluating a subscription's where against an object's row (what every write
 * event does, events/sql-match.ts) selects exactly the objects a find with that where returns,
 * and the in-memory prefilter never rules out one of them. On every engine.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { forEachEngine } from './harness/engines.ts';
import { parseWhere } from '../../src/query/parse-where.ts';
import { rowOf, type RowValues } from '../../src/modules/livequery/events/object-state.ts';
import { decideExactly, mayMatch } from '../../src/modules/livequery/events/prefilter.ts';
import { evaluateWheres } from '../../src/modules/livequery/events/sql-match.ts';

const CLASS = 'LqParity';
const strings = ['a', 'b', 'B', 'ab', '', 'a.b', 'é'];
const numbers = [-1, 0, 1, 1.5, 2, 10];
const dates = ['2024-01-01T00:00:00.000Z', '2024-06-01T12:00:00.000Z', '2025-01-01T00:00:00.000Z'].map((iso) => ({ __type: 'Date', iso }));
const pointers = ['p1', 'p2'].map((objectId) => ({ __type: 'Pointer', className: 'Other', objectId }));

/** An object: every field optional; each field keeps one type (the class locks it). */
const objectArb = fc.record(
  {
    s: fc.oneof(fc.constantFrom(...strings), fc.constant(null)),
    n: fc.oneof(fc.constantFrom(...numbers), fc.constant(null)),
    b: fc.boolean(),
    arr: fc.array(fc.oneof(fc.constantFrom(...strings), fc.constantFrom(...numbers)), { maxLength: 3 }),
    d: fc.constantFrom(...dates),
    p: fc.constantFrom(...pointers),
    o: fc.record({ k: fc.constantFrom(...strings), m: fc.constantFrom(...numbers) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

const scalar = fc.oneof(fc.constantFrom(...strings), fc.constantFrom(...numbers), fc.boolean(), fc.constant(null));
const fieldValue: Record<string, fc.Arbitrary<unknown>> = {
  s: fc.oneof(fc.constantFrom(...strings), scalar),
  n: fc.oneof(fc.constantFrom(...numbers), scalar),
  b: fc.oneof(fc.boolean(), scalar),
  arr: fc.oneof(fc.constantFrom(...strings), fc.constantFrom(...numbers)),
  d: fc.constantFrom(...dates),
  p: fc.constantFrom(...pointers),
  'o.k': fc.constantFrom(...strings),
  'o.m': fc.constantFrom(...numbers),
};
const fieldArb = fc.constantFrom(...Object.keys(fieldValue));

/** One field condition: `{field: value}` or `{field: {$op: value}}`. */
const leafArb: fc.Arbitrary<Record<string, unknown>> = fieldArb.chain((f) => {
  const v = fieldValue[f];
  return fc.oneof(
    v.map((x) => ({ [f]: x })),
    fc.tuple(fc.constantFrom('$ne', '$lt', '$lte', '$gt', '$gte'), v).map(([op, x]) => ({ [f]: { [op]: x } })),
    fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(v, { maxLength: 3 })).map(([op, xs]) => ({ [f]: { [op]: xs } })),
    fc.boolean().map((e) => ({ [f]: { $exists: e } })),
    ...(f === 'arr' ? [fc.array(v, { minLength: 1, maxLength: 2 }).map((xs) => ({ arr: { $all: xs } })), fc.nat(3).map((n) => ({ arr: { $size: n } }))] : []),
    ...(f === 's' || f === 'o.k' ? [fc.constantFrom('^a', 'b$', 'A', '\\.').map((re) => ({ [f]: { $regex: re } })), fc.constant({ [f]: { $regex: 'a', $options: 'i' } })] : []),
  );
});

const whereArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { depthSize: 'small' },
  leafArb,
  fc.array(leafArb, { minLength: 1, maxLength: 3 }).map((ls) => Object.assign({}, ...ls)),
  fc.array(leafArb, { minLength: 1, maxLength: 3 }).map((ls) => ({ $or: ls })),
  fc.tuple(leafArb, fc.array(leafArb, { minLength: 1, maxLength: 2 })).map(([a, ls]) => ({ $and: [a, { $or: ls }] })),
);

forEachEngine('livequery: matching is the query (property-based)', (h) => {
  let rows: RowValues[] = [];

  test('seed generated objects', async () => {
    const objects = fc.sample(objectArb, { numRuns: 60, seed: 14 });
    // Each field is written with its type first, so that the class schema knows all of them.
    const first = await h().client.post(`/1.1/classes/${CLASS}`, { s: 'a', n: 1, b: true, arr: ['a'], d: dates[0], p: pointers[0], o: { k: 'a', m: 1 } }, { master: true });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    for (const o of objects) {
      const res = await h().client.post(`/1.1/classes/${CLASS}`, o, { master: true });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const all = await h().client.get(`/1.1/classes/${CLASS}`, { limit: 1000, returnACL: 'true' }, { master: true });
    assert.equal(all.status, 200);
    rows = all.body.results.map((o: Record<string, unknown>) => rowOf(o));
    assert.equal(rows.length, objects.length + 1);
  });

  test('a where selects the same objects from rows as from the table, and the prefilter keeps them', async () => {
    await fc.assert(
      fc.asyncProperty(whereArb, async (where) => {
        const res = await h().client.get(`/1.1/classes/${CLASS}`, { where, limit: 1000, keys: 'objectId' }, { master: true });
        let cond;
        try {
          cond = parseWhere(where);
        } catch {
          assert.notEqual(res.status, 200, 'the parser refused a where the query accepted');
          return;
        }
        const evaluated = await evaluateWheres(h().app, CLASS, rows, [{ key: 'w', condition: cond, readers: null }]);
        const fromRows = rows.filter((_, i) => evaluated.get('w')![i]).map((r) => r.objectId).sort();
        if (res.status !== 200) {
          // A where the query refuses (a type the schema rejects) matches no event either.
          assert.deepEqual(fromRows, [], `${JSON.stringify(where)} -> ${res.status} ${JSON.stringify(res.body)}`);
          return;
        }
        const fromTable = res.body.results.map((o: { objectId: string }) => o.objectId).sort();
        assert.deepEqual(fromRows, fromTable, JSON.stringify(where));
        for (const r of rows) if (fromTable.includes(r.objectId)) assert.ok(mayMatch(cond, r), `prefilter dropped ${r.objectId} for ${JSON.stringify(where)}`);
        for (const r of rows) {
          const d = decideExactly(cond, r);
          if (d !== undefined) assert.equal(d, fromTable.includes(r.objectId), `decided ${d} for ${r.objectId} and ${JSON.stringify(where)}`);
        }
      }),
      { numRuns: 150, seed: 1414 },
    );
  });
});
