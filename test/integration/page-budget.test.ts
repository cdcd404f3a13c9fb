// The page bound (src/objects/page-budget.ts) with a small bound: a page whose documents are all
// within their share is read by one statement; a page with a larger document is read again by the
// running-sum statement, which answers it whole when it fits and cuts it (154) when it does not.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { isApiError } from '../../src/errors/api-error.ts';
import { readPage, type PageRow } from '../../src/objects/page-budget.ts';
import { ident, sql, type Sql } from '../../src/sql/fragment.ts';
import type { Queryable } from '../../src/storage/database.ts';
import { forEachEngine } from './harness/engines.ts';

forEachEngine('page bound: one statement per page unless a document is over its share', (h) => {
  // Documents of about 120 bytes of JSON text ('a' ... 'e'), and one of about 620 ('big').
  const SIZES: Record<string, number> = { a: 100, b: 100, big: 600, c: 100, d: 100, e: 100 };
  const text = new Map<string, number>();

  before(async () => {
    for (const [name, n] of Object.entries(SIZES)) {
      const res = await h().client.post('/1.1/classes/PageCut', { name, pad: 'x'.repeat(n) });
      assert.equal(res.status, 201, res.text);
    }
    for (const r of await h().db.query<{ name: string; len: number }>(sql`SELECT data->>'name' AS name, octet_length(data::text) AS len FROM ${ident('PageCut')}`)) {
      text.set(r.name, Number(r.len));
    }
  });

  /** readPage over PageCut in name order (skip, limit) with the bound `maxBytes`; the statements it ran. */
  async function page(skip: number, limit: number, maxBytes: number): Promise<{ names: string[]; statements: number; error?: number }> {
    const seen: Sql[] = [];
    const db: Queryable = { query: (s) => (seen.push(s), h().db.query(s)) };
    try {
      const rows = await readPage<PageRow>(db, { table: ident('PageCut'), filter: sql`TRUE`, order: sql`data->>'name'`, limit, skip, acl: false }, maxBytes);
      return { names: rows.map((r) => (JSON.parse(r.data_text) as { name: string }).name), statements: seen.length };
    } catch (err) {
      if (isApiError(err)) return { names: [], statements: seen.length, error: err.code };
      throw err;
    }
  }

  test('documents within their share: one statement, the whole page', async () => {
    // Pages in name order: a, b, big, c, d, e. Three small ones with a bound of three shares.
    const small = text.get('a')!;
    assert.deepEqual(await page(3, 3, 3 * small + 10), { names: ['c', 'd', 'e'], statements: 1 });
  });

  test('a document over its share but a page within the bound: the second statement answers it whole', async () => {
    // a + b + big fit in the bound, but big is over a third of it.
    const bound = text.get('a')! + text.get('b')! + text.get('big')! + 5;
    assert.ok(text.get('big')! > bound / 3);
    assert.deepEqual(await page(0, 3, bound), { names: ['a', 'b', 'big'], statements: 2 });
  });

  test('a page past the bound: 154 after the second statement', async () => {
    // big + c + d is past the bound, although big alone is within it.
    const bound = text.get('big')! + text.get('c')! + 5;
    assert.deepEqual(await page(2, 3, bound), { names: [], statements: 2, error: 154 });
    // The first row always comes, however large: a page of one is answered.
    assert.deepEqual(await page(2, 1, 50), { names: ['big'], statements: 2 });
  });
});
