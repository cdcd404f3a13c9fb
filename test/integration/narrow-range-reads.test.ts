import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ident, sql, staticText, type Sql } from '../../src/sql/fragment.ts';
import type { Database } from '../../src/storage/database.ts';
import { isNarrowRead, narrowRead } from '../../src/storage/narrow-reads.ts';
import { isPreparedShape } from '../../src/storage/prepared-statements.ts';
import { forEachEngine, TEST_KEYS, type Harness } from './harness/engines.ts';
import { userPointer } from './harness/include-helpers.ts';
import { captured } from './harness/statement-spy.ts';
import { signUp } from './harness/user-helpers.ts';

const CLASS = 'NarrowR';
const ROWS = 10_000;
const NARROW = { n: { $gte: 5000, $lt: 5100 } };
const WIDE = { n: { $gte: 0, $lt: 9000 } };

interface Row {
  objectId: string;
  n: number;
  score: number;
  owner?: { username?: string };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/**
 * The class with ROWS objects: n = 0..ROWS-1 in an order unrelated to the rows' places in the
 * table (as in the peer bench: an index scan over many of them is then a random read per row), a
 * score that is not n's order, one owner, and rows about the size of the peer bench's (the
 * planner's choice between the two plans of a narrow range depends on the pages a range spans:
 * with 20% smaller rows its generic plan at 1.1 is still the bitmap one).
 */
async function seed(h: Harness, ownerId: string): Promise<void> {
  const { client, db } = h;
  // The first object through the API (it locks the fields' types), the rest by SQL: 10,000 creates
  // over HTTP would be most of the test's time.
  const first = await client.post(`/1.1/classes/${CLASS}`, { n: 0, score: 0, owner: userPointer(ownerId) });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  await db.query(sql`
    INSERT INTO ${ident(db.schema)}.${ident(CLASS)} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    SELECT substr(md5(i::text), 1, 24), now(), now(), '{"*":{"read":true,"write":true}}'::jsonb, '{*}', '{*}',
      jsonb_build_object('n', n, 'score', (n * 7919) % 10007, 's', repeat('x', 80), 'owner', ${JSON.stringify(userPointer(ownerId))}::jsonb)
    FROM generate_series(1, ${ROWS - 1}) i, LATERAL (SELECT (i * 7919) % ${ROWS} AS n) k`);
  // The index on n (its statistics come with it: `index add` analyzes the table).
  assert.equal((await client.post(`/1.1/larder/classes/${CLASS}/indexes`, { field: 'n' }, { master: true })).status, 201);
}

async function page(h: Harness, where: unknown, opts: { include?: boolean; session?: string } = {}): Promise<Row[]> {
  const res = await h.client.get(`/1.1/classes/${CLASS}`, { where: JSON.stringify(where), order: '-score', limit: '20', ...(opts.include ? { include: 'owner' } : {}) }, opts.session ? { session: opts.session } : {});
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  return res.body.results as Row[];
}

/** The page PostgreSQL's own sort gives: the rows of the range, by score descending. */
function expected(lo: number, hi: number): number[] {
  const rows = Array.from({ length: hi - lo }, (_, k) => ({ n: lo + k, score: ((lo + k) * 7919) % 10007 }));
  return rows.sort((a, b) => b.score - a.score).slice(0, 20).map((r) => r.n);
}

/** A bound value as an SQL literal (EXECUTE takes no protocol parameters); the tests' own values only. */
function literal(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** random_page_cost on the connections a statement runs on. */
async function costOf(db: Database, narrow: boolean): Promise<string> {
  const probe = sql`SELECT current_setting('random_page_cost') AS v`;
  const [row] = await db.query<{ v: string }>(narrow ? narrowRead(probe) : probe);
  return row.v;
}

/** The scan nodes of a statement's generic plan, made with the given random_page_cost. */
async function genericPlan(db: Database, statement: Sql, cost: string): Promise<PlanNode[]> {
  const { text, values } = statement.toQuery();
  return db.transaction(async (tx) => {
    await tx.query(staticText(`SET LOCAL random_page_cost = ${Number(cost)}`));
    await tx.query(staticText('SET LOCAL plan_cache_mode = force_generic_plan'));
    await tx.query(staticText(`PREPARE narrow_probe AS ${text}`));
    const [row] = await tx.query<{ 'QUERY PLAN': unknown }>(staticText(`EXPLAIN (FORMAT JSON) EXECUTE narrow_probe(${values.map(literal).join(', ')})`));
    await tx.query(staticText('DEALLOCATE narrow_probe'));
    const json = row['QUERY PLAN'];
    const nodes: PlanNode[] = [];
    const walk = (n: PlanNode) => {
      nodes.push(n);
      for (const c of n.Plans ?? []) walk(c);
    };
    walk(((typeof json === 'string' ? JSON.parse(json) : json) as { Plan: PlanNode }[])[0].Plan);
    return nodes;
  });
}

const onN = (nodes: PlanNode[], type: string) => nodes.some((n) => n['Node Type'] === type && /_f_n$/.test(n['Index Name'] ?? ''));

// A prepared range whose width the statistics put under 2% of the class runs on connections
// planned with random_page_cost 1.1 on PostgreSQL (src/plan/narrow-range.ts,
// src/storage/narrow-reads.ts): its generic plan reads the index in order. Every other statement,
// a wide range among them, keeps the server's costs and so its bitmap plan (docs/benchmarks.md,
// issue 16). The embedded engine runs everything on its one connection at its own costs.
forEachEngine('narrow range reads', (h: () => Harness) => {
  test('a narrow range runs on the low-cost connections with an index scan, a wide one keeps its bitmap plan; answers are unchanged', async () => {
    const { db, engine } = h();
    const owner = await signUp(h());
    await seed(h(), owner.objectId);
    const other = await signUp(h());

    const narrowRuns = await captured(db, async () => {
      for (let i = 0; i < 7; i++) assert.deepEqual((await page(h(), NARROW)).map((r) => r.n), expected(5000, 5100), `run ${i + 1}`);
    });
    const narrowPage = narrowRuns.filter((s) => isPreparedShape(s) && isNarrowRead(s));
    assert.ok(narrowPage.length >= 7, 'the narrow page statement ran prepared, as a narrow read');
    // A reader with a user is not prepared, so not narrow: the same answer on the main connections.
    const userRuns = await captured(db, async () => assert.deepEqual((await page(h(), NARROW, { session: other.sessionToken })).map((r) => r.n), expected(5000, 5100)));
    assert.ok(!userRuns.some(isNarrowRead));

    const wideRuns = await captured(db, async () => {
      for (let i = 0; i < 7; i++) assert.deepEqual((await page(h(), WIDE)).map((r) => r.n), expected(0, 9000), `run ${i + 1}`);
    });
    const widePage = wideRuns.filter(isPreparedShape);
    assert.ok(widePage.length >= 7, 'the wide page statement ran prepared');
    assert.ok(!wideRuns.some(isNarrowRead), 'a wide range is never a narrow read');

    // include=owner: the page and its owner in one statement, narrow too, the same rows.
    const includeRuns = await captured(db, async () => {
      for (let i = 0; i < 7; i++) {
        const rows = await page(h(), NARROW, { include: true });
        assert.deepEqual(rows.map((r) => r.n), expected(5000, 5100));
        assert.ok(rows.every((r) => r.owner?.username === owner.username));
      }
    });
    assert.ok(includeRuns.some((s) => isNarrowRead(s) && s.toQuery().text.includes('WITH page')), 'the joint statement ran as a narrow read');

    // The connections' costs: the low one only for narrow reads, and only on PostgreSQL.
    const narrowCost = await costOf(db, true);
    const serverCost = await costOf(db, false);
    assert.equal(serverCost, '4');
    assert.equal(narrowCost, engine === 'postgres' ? '1.1' : '4');

    // /metrics counts those connections apart from the main pool (PostgreSQL only).
    const res = await h().server.inject({ method: 'GET', url: '/metrics', headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master` } });
    assert.equal(res.statusCode, 200, res.body);
    const gauge = (state: string) => Number(new RegExp(`^larder_db_narrow_pool_connections\\{state="${state}"\\} (\\S+)$`, 'm').exec(res.body)?.[1]);
    const stats = db.narrowPoolStats?.();
    if (engine === 'postgres') {
      assert.ok(stats && stats.size >= 1 && stats.total >= 1 && stats.total <= stats.size, JSON.stringify(stats));
      assert.ok(gauge('size') >= stats.size && gauge('total') >= 1, res.body);
    } else {
      assert.equal(stats, undefined);
    }

    // The plans those connections make: the narrow statement reads the n index in order on
    // PostgreSQL (a bitmap of it on the embedded engine, as before); the wide one a bitmap of it.
    const narrowPlan = await genericPlan(db, narrowPage[0], narrowCost);
    assert.equal(onN(narrowPlan, 'Index Scan'), engine === 'postgres', JSON.stringify(narrowPlan.map((n) => n['Node Type'])));
    assert.equal(onN(narrowPlan, 'Bitmap Index Scan'), engine === 'pglite', JSON.stringify(narrowPlan.map((n) => n['Node Type'])));
    const widePlan = await genericPlan(db, widePage[0], serverCost);
    assert.ok(onN(widePlan, 'Bitmap Index Scan') && !onN(widePlan, 'Index Scan'), JSON.stringify(widePlan.map((n) => n['Node Type'])));
  });
});
