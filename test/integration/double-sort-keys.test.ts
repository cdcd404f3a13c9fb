import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { captured } from './harness/statement-spy.ts';
import { signUp } from './harness/user-helpers.ts';

// On PostgreSQL a Number field no index names sorts by `((data->>'v')::float8)`, an indexed one by the index's
// `((data->>'v')::numeric)` (src/plan/double-sort-keys.ts). Both must order every value a client
// can write alike: the answers before the index (double key) and after it (numeric key, the index)
// are the same pages, and the values come in numeric order with missing and null ones first.
const VALUES: Array<number | null | undefined> = [
  0.1, 0.2, 0.3, 0.30000000000000004, -0.5, 0, 1e21, -1e21, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308,
  9007199254740991, 9007199254740992, 123.456, 2, 2, 2, 1e-7, 17, null, null, undefined, undefined, 3.14159, -3.14159,
];

type Page = { objectId: string; v?: number | null }[];

function pageOf(res: { status: number; body: { results: Page } }): Page {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.results;
}

const idsOf = (p: Page) => p.map((o) => o.objectId);

/** Missing and null first ascending (last descending), then by value; equal values in any order here. */
function assertOrdered(p: Page, descending: boolean): void {
  const rank = (o: Page[number]) => (o.v === undefined || o.v === null ? -Infinity : o.v);
  for (let i = 1; i < p.length; i++) {
    const [a, b] = [rank(p[i - 1]), rank(p[i])];
    assert.ok(descending ? a >= b : a <= b, `out of order at ${i}: ${p[i - 1].v} then ${p[i].v}`);
  }
}

const statementText = (s: { toQuery(): { text: string } }) => s.toQuery().text;

forEachEngine('double sort keys', (h: () => Harness) => {
  test('an unindexed Number field sorts as a double, an indexed one by its index, with the same answers', async () => {
    const { client, db } = h();
    const user = await signUp(h());
    for (const [i, v] of VALUES.entries()) {
      const body: Record<string, unknown> = { k: i % 5 };
      if (v !== undefined) body.v = v;
      assert.equal((await client.post('/1.1/classes/DblSort', body)).status, 201);
    }
    // A value made by an Increment in SQL (numeric arithmetic): 0.1 + 0.2 is stored as 0.3.
    const inc = await client.post('/1.1/classes/DblSort', { k: 9, v: 0.1 });
    assert.equal((await client.put(`/1.1/classes/DblSort/${inc.body.objectId}`, { v: { __op: 'Increment', amount: 0.2 } })).status, 200);

    const queries = [
      { order: 'v', limit: '100' },
      { order: '-v', limit: '100' },
      { order: '-v', limit: '5', skip: '3' },
      { order: 'v,-k', limit: '100' },
      { where: JSON.stringify({ k: { $gte: 1, $lte: 3 } }), order: '-v', limit: '100' },
    ];
    const answers = async () => {
      const out: string[][] = [];
      for (const q of queries) {
        // Eight runs: past PostgreSQL's five custom plans of a prepared statement.
        let first: Page | undefined;
        for (let i = 0; i < 8; i++) {
          const p = pageOf(await client.get('/1.1/classes/DblSort', q));
          first ??= p;
          assert.deepEqual(idsOf(p), idsOf(first), `${JSON.stringify(q)}: the same answer every run`);
        }
        const page = first as Page;
        if (q.order !== 'v,-k') assertOrdered(page, q.order.startsWith('-'));
        // A reader with a user (unprepared statement) gets the same page.
        assert.deepEqual(idsOf(pageOf(await client.get('/1.1/classes/DblSort', q, { session: user.sessionToken }))), idsOf(page));
        out.push(idsOf(page));
      }
      return out;
    };

    let before: string[][] = [];
    const unindexed = await captured(db, async () => (before = await answers()));
    const pageTexts = unindexed.map(statementText).filter((t) => t.includes('"DblSort"') && t.includes('ORDER BY'));
    // PostgreSQL only: on the embedded engine float8in costs more than numeric_in, so it keeps the numeric key.
    const doubleKey = h().engine === 'postgres';
    assert.ok(pageTexts.length > 0 && pageTexts.every((t) => t.includes(`((data->>'v')::float8)`) === doubleKey && t.includes(`((data->>'v')::numeric)`) !== doubleKey), 'no index names v: the double key on PostgreSQL');
    assert.equal(before[0].length, VALUES.length + 1);
    assert.equal(before[2].length, 5);
    assert.deepEqual(before[2], before[1].slice(3, 8));

    assert.equal((await client.post('/1.1/larder/classes/DblSort/indexes', { field: 'v' }, { master: true })).status, 201);
    let after: string[][] = [];
    const indexed = await captured(db, async () => (after = await answers()));
    const indexedTexts = indexed.map(statementText).filter((t) => t.includes('"DblSort"') && t.includes('ORDER BY'));
    assert.ok(indexedTexts.length > 0 && indexedTexts.every((t) => !t.includes(`((data->>'v')::float8)`) && t.includes(`((data->>'v')::numeric)`)), 'an index names v: its expression');
    // order=v,-k: k has no index, so its key is a double next to v's numeric one.
    assert.ok(indexedTexts.some((t) => t.includes(`((data->>'v')::numeric) ASC NULLS FIRST, ((data->>'k')::${doubleKey ? 'float8' : 'numeric'}) DESC NULLS LAST`)));
    assert.deepEqual(after, before, 'the same pages sorted by the numeric key');
  });
});
