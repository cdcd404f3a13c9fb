import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { isApiError } from '../../src/errors/api-error.ts';
import { createLogger } from '../../src/log.ts';
import { openApp } from '../../src/open-app.ts';
import { addIndex, dropIndex, fieldIndexName, listIndexes, type IndexDeps } from '../../src/admin/indexes.ts';
import { indexName } from '../../src/storage/class-table.ts';
import { sql, type Sql } from '../../src/sql/fragment.ts';
import type { Database } from '../../src/storage/database.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { engines, forEachEngine, TEST_KEYS, type Harness } from './harness/engines.ts';
import { captured } from './harness/statement-spy.ts';
import { runLarder } from './harness/larder-process.ts';

const ROWS = 5000;
const SCORE_IDX = fieldIndexName('Score', 'score');
const NAME_IDX = fieldIndexName('Score', 'name');
const TAGS_IDX = fieldIndexName('Score', 'tags');

/** Creates class Score through the API (fixing field types), then adds ROWS rows in one statement. */
async function seed(h: Harness): Promise<void> {
  const res = await h.client.post('/1.1/classes/Score', { score: 0, name: 'name_00000', tags: ['t0'], meta: { x: 0 }, when: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } });
  assert.equal(res.status, 201, res.text);
  // The bulk rows copy the ACL columns the API wrote, so they are readable like the first one.
  const [first] = await h.db.query<{ acl: unknown; rperm: string[]; wperm: string[] }>(sql`SELECT acl, rperm, wperm FROM "Score" LIMIT 1`);
  await h.db.query(sql`
    INSERT INTO "Score" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    SELECT lpad(to_hex(g), 24, '0'), now(), now(), ${JSON.stringify(first.acl)}::jsonb, ${first.rperm}::text[], ${first.wperm}::text[],
      jsonb_build_object('score', g, 'name', 'name_' || lpad(g::text, 5, '0'), 'tags', jsonb_build_array('t' || (g % 100)), 'meta', jsonb_build_object('x', g))
    FROM generate_series(1, ${ROWS}::int) g`);
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Filter?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}

/** EXPLAIN (FORMAT JSON) of a statement with its bound values: every plan node, flattened. */
async function plan(db: Database, statement: Sql): Promise<PlanNode[]> {
  const [row] = await db.query<{ 'QUERY PLAN': unknown }>(sql`EXPLAIN (FORMAT JSON) ${statement}`);
  const json = row['QUERY PLAN'];
  const parsed = (typeof json === 'string' ? JSON.parse(json) : json) as { Plan: PlanNode }[];
  const out: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    out.push(n);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(parsed[0].Plan);
  return out;
}

function indexesUsed(nodes: PlanNode[]): string[] {
  return nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
}

/** The one statement of a request that reads the class table (the page or the count). */
async function statementOf(h: Harness, query: Record<string, string | number | object>, pick: RegExp): Promise<{ statement: Sql; body: any }> {
  let body: any;
  const seen = await captured(h.db, async () => {
    const res = await h.client.get('/1.1/classes/Score', query);
    assert.equal(res.status, 200, res.text);
    body = res.body;
  });
  const matching = seen.filter((s) => pick.test(s.toQuery().text));
  assert.equal(matching.length, 1, `one statement matching ${pick}: ${seen.map((s) => s.toQuery().text).join('\n')}`);
  return { statement: matching[0], body };
}


/** The statement of a page of objects (wrapped by the page-size bound, objects/page-budget.ts). */
const PAGE_STATEMENT = /THEN p.data_text END AS data_text/;
async function apiErrorOf(work: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await work;
  } catch (err) {
    if (isApiError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  assert.fail('expected an ApiError');
}

forEachEngine('indexes: larder index add/list/drop and the planner', (h) => {
  const deps = (): IndexDeps => ({ db: h().db, classes: h().app.classes });
  before(async () => {
    // No ANALYZE here: `index add` analyzes the table, as an operator would rely on.
    await seed(h());
  });

  test('add creates the btree on the compiled expression and records it; adding again is a no-op', async () => {
    const res = await addIndex(deps(), 'Score', 'score');
    assert.deepEqual(res, {
      outcome: 'created',
      index: { name: SCORE_IDX, field: 'score', type: 'Number', using: 'btree', columns: `((data->>'score')::numeric) NULLS FIRST, "objectId"` },
    });
    assert.equal((await addIndex(deps(), 'Score', 'score')).outcome, 'exists');
    const name = await addIndex(deps(), 'Score', 'name');
    assert.equal(name.outcome === 'created' && name.index.columns, `((data->>'name') COLLATE "C") NULLS FIRST, "objectId"`);
    const [{ indexes }] = await h().db.query<{ indexes: { field: string }[] }>(sql`SELECT indexes FROM _larder_classes WHERE name = 'Score'`);
    assert.deepEqual(indexes.map((i) => i.field).sort(), ['name', 'score']);
    const [{ def }] = await h().db.query<{ def: string }>(sql`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = ${h().db.schema} AND indexname = ${SCORE_IDX}`);
    assert.match(def, /ON \w+\."Score" USING btree \(\(\(\(data ->> 'score'::text\)\)::numeric\) NULLS FIRST, "objectId"\)$/);
    assert.match(SCORE_IDX, /^_lx_[0-9a-f]{16}_f_score$/);
  });

  test('a range query on a Number field, ordered, limit 20, uses the index (both directions)', async () => {
    const up = await statementOf(h(), { where: { score: { $gte: 4000 } }, order: 'score', limit: 20 }, PAGE_STATEMENT);
    assert.deepEqual(up.body.results.map((o: { score: number }) => o.score), Array.from({ length: 20 }, (_, i) => 4000 + i));
    assert.ok(indexesUsed(await plan(h().db, up.statement)).includes(SCORE_IDX), JSON.stringify(await plan(h().db, up.statement)));
    const down = await statementOf(h(), { where: { score: { $lt: 1000 } }, order: '-score', limit: 20 }, PAGE_STATEMENT);
    assert.deepEqual(down.body.results.map((o: { score: number }) => o.score), Array.from({ length: 20 }, (_, i) => 999 - i));
    assert.ok(indexesUsed(await plan(h().db, down.statement)).includes(SCORE_IDX));
  });

  test('a range query on a String field, ordered, limit 20, uses the index', async () => {
    const res = await statementOf(h(), { where: { name: { $gt: 'name_03000' } }, order: 'name', limit: 20 }, PAGE_STATEMENT);
    assert.equal(res.body.results[0].name, 'name_03001');
    assert.equal(res.body.results.length, 20);
    assert.ok(indexesUsed(await plan(h().db, res.statement)).includes(NAME_IDX));
  });

  test('a page turns documents into JSON text after the sort and LIMIT, once per row of the page', async () => {
    // Filter on one field, order by another: ~100 rows match and are sorted for a page of 20.
    // The conversion to text (the answer and the page-size bound read it) must not run for every
    // matching row below the sort, nor twice per page row (objects/page-budget.ts).
    const queries: Record<string, string | number | object>[] = [
      { where: { score: { $gte: 1000, $lt: 1100 } }, order: '-name', limit: 20 },
      // include reads the page through the parsing path (findObjects), the plain query splices it.
      { where: { score: { $gte: 1000, $lt: 1100 } }, order: '-name', limit: 20, include: 'meta' },
    ];
    for (const query of queries) {
      const res = await statementOf(h(), query, PAGE_STATEMENT);
      assert.deepEqual(res.body.results.map((o: { name: string }) => o.name), Array.from({ length: 20 }, (_, i) => `name_0${1099 - i}`));
      const [row] = await h().db.query<{ 'QUERY PLAN': unknown }>(sql`EXPLAIN (VERBOSE, FORMAT JSON) ${res.statement}`);
      const json = row['QUERY PLAN'];
      const top = ((typeof json === 'string' ? JSON.parse(json) : json) as { Plan: PlanNode & { Output?: string[] } }[])[0].Plan;
      const nodes: (PlanNode & { Output?: string[] })[] = [];
      const walk = (n: PlanNode & { Output?: string[] }, below: boolean) => {
        if (below) nodes.push(n);
        for (const c of n.Plans ?? []) walk(c, below || n['Node Type'] === 'Limit');
      };
      walk(top, false);
      assert.ok(nodes.some((n) => n['Node Type'] === 'Sort'), 'the page is sorted below the LIMIT');
      const converted = nodes.filter((n) => (n.Output ?? []).some((o) => /data\)::text/.test(o)));
      assert.deepEqual(converted.map((n) => n['Node Type']), [], 'no document is converted to text below the LIMIT');
      const outputs = JSON.stringify(top);
      assert.equal(outputs.match(/\(q\.data\)::text/g)?.length, 1, 'each page row is converted once');
      assert.match(outputs, /octet_length\(p\.data_text\)/, 'the size bound reads the converted text, not a second conversion');
    }
  });

  test('a count with $in on an indexed String field uses the index, with no per-row function', async () => {
    const names = ['name_00010', 'name_01234', 'name_04999', 'nobody'];
    const res = await statementOf(h(), { where: { name: { $in: names } }, count: 1, limit: 0 }, /count\(\*\)/);
    assert.equal(res.body.count, 3);
    const text = res.statement.toQuery().text;
    assert.match(text, /\(\(data->>'name'\) COLLATE "C"\) = ANY\(\$1::text\[\]\)/);
    const nodes = await plan(h().db, res.statement);
    assert.ok(indexesUsed(nodes).includes(NAME_IDX), JSON.stringify(nodes));
    for (const n of nodes) assert.doesNotMatch(`${n.Filter ?? ''} ${n['Index Cond'] ?? ''}`, /jsonb_typeof|larder_|jsonb_array_elements/);
  });

  test('an Array field gets a GIN index that serves equality ("contains")', async () => {
    const res = await addIndex(deps(), 'Score', 'tags');
    assert.equal(res.outcome === 'created' && `${res.index.using} ${res.index.columns}`, `gin (data->'tags')`);
    const q = await statementOf(h(), { where: { tags: 't7' }, count: 1, limit: 0 }, /count\(\*\)/);
    assert.equal(q.body.count, ROWS / 100);
    assert.ok(indexesUsed(await plan(h().db, q.statement)).includes(TAGS_IDX));
  });

  test('createdAt, updatedAt and objectId are indexed already', async () => {
    for (const [field, name] of [['createdAt', indexName('Score', 'createdAt')], ['updatedAt', indexName('Score', 'updatedAt')], ['objectId', 'Score_pkey']]) {
      assert.deepEqual(await addIndex(deps(), 'Score', field), { outcome: 'builtIn', index: { name, field } });
      const rows = await h().db.query(sql`SELECT 1 FROM pg_indexes WHERE schemaname = ${h().db.schema} AND indexname = ${name}`);
      assert.equal(rows.length, 1, name);
    }
  });

  test('mistakes get clear errors and create nothing', async () => {
    const cases: [string, string, number, RegExp][] = [
      ['NoSuchClass', 'score', 101, /Class 'NoSuchClass' does not exist/],
      ['bad-class', 'score', 103, /Invalid class name/],
      ['Score', 'nope', 102, /Class 'Score' has no field 'nope' \(its fields: meta, name, score, tags, when\)/],
      ['Score', 'meta', 102, /"meta" cannot be indexed/],
      ['Score', 'bad-name', 105, /Invalid field name 'bad-name'/],
      ['Score', 'meta.x', 105, /Invalid field name 'meta\.x'/],
    ];
    for (const [cls, field, code, message] of cases) {
      const err = await apiErrorOf(addIndex(deps(), cls, field));
      assert.equal(err.code, code, `${cls}.${field}`);
      assert.match(err.message, message);
    }
    const names = await h().db.query<{ n: string }>(sql`SELECT indexname AS n FROM pg_indexes WHERE schemaname = ${h().db.schema} AND tablename = 'Score'`);
    const builtIn = ['Score_pkey', ...['rperm', 'createdAt', 'updatedAt'].map((s) => indexName('Score', s))];
    assert.deepEqual(names.map((r) => r.n).sort(), [...builtIn, NAME_IDX, SCORE_IDX, TAGS_IDX].sort());
  });

  test('list shows every index with its state; drop removes index and record', async () => {
    const listed = await listIndexes(deps(), 'Score');
    assert.deepEqual(listed.map((i) => [i.field, i.name, i.using, i.state]), [
      ['name', NAME_IDX, 'btree', 'ready'],
      ['score', SCORE_IDX, 'btree', 'ready'],
      ['tags', TAGS_IDX, 'gin', 'ready'],
    ]);
    assert.equal((await listIndexes(deps())).length, 3);
    await dropIndex(deps(), 'Score', 'tags');
    assert.deepEqual((await listIndexes(deps(), 'Score')).map((i) => i.field), ['name', 'score']);
    const gone = await h().db.query(sql`SELECT 1 FROM pg_indexes WHERE schemaname = ${h().db.schema} AND indexname = ${TAGS_IDX}`);
    assert.equal(gone.length, 0);
    assert.match((await apiErrorOf(dropIndex(deps(), 'Score', 'tags'))).message, /no index on Score\.tags/);
    // An index dropped behind Larder's back is reported, and `add` builds it again.
    await h().db.exec(`DROP INDEX "${NAME_IDX}"`);
    assert.equal((await listIndexes(deps(), 'Score')).find((i) => i.field === 'name')?.state, 'missing');
    assert.equal((await addIndex(deps(), 'Score', 'name')).outcome, 'created');
  });

  test('index names stay apart from tables, other classes and the 63-byte limit', async () => {
    const long = `f${'x'.repeat(70)}`;
    assert.equal((await h().client.post('/1.1/classes/Score', { [long]: 1 })).status, 201);
    const added = await addIndex(deps(), 'Score', long);
    assert.match(added.outcome === 'created' ? added.index.name : '', /^_lx_[0-9a-f]{16}_h_[0-9a-f]{16}$/);
    // "A_b" + "c" and "A" + "b_c" would share a name made by joining class and field.
    assert.equal((await h().client.post('/1.1/classes/A_b', { c: 1 })).status, 201);
    assert.equal((await h().client.post('/1.1/classes/A', { b_c: 1 })).status, 201);
    const first = await addIndex(deps(), 'A_b', 'c');
    const second = await addIndex(deps(), 'A', 'b_c');
    assert.equal(first.outcome, 'created');
    assert.equal(second.outcome, 'created');
    assert.notEqual(first.index.name, second.index.name);
    assert.deepEqual((await listIndexes(deps(), 'A')).map((i) => i.state), ['ready']);
    assert.deepEqual((await listIndexes(deps(), 'A_b')).map((i) => i.state), ['ready']);
    // A field named like a built-in index suffix gets its own index.
    assert.equal((await h().client.post('/1.1/classes/Score', { rperm: 'x' })).status, 201);
    const rperm = await addIndex(deps(), 'Score', 'rperm');
    assert.equal(rperm.outcome, 'created');
    assert.notEqual(rperm.index.name, indexName('Score', 'rperm'));
  });
});

// The command line, on a database prepared in-process: a data directory (PGlite) or a schema.
for (const engine of engines()) {
  describe(`larder index (command line) [${engine}]`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-index-'));
    const schema = `t_idx_${randomBytes(5).toString('hex')}`;
    const env: Record<string, string> =
      engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LARDER_DB_SCHEMA: schema } : { LARDER_DATA_DIR: dataDir, LARDER_DB_SCHEMA: schema };
    const open = () =>
      openDatabase({
        databaseUrl: env.DATABASE_URL,
        dataDir: engine === 'pglite' ? join(dataDir, 'pglite') : undefined,
        schema,
        poolSize: 2,
        statementTimeoutMs: 10_000,
      });
    const cli = (...args: string[]) => runLarder(['index', ...args], env);

    before(async () => {
      const db = await open();
      const { app } = await openApp({ db, keys: TEST_KEYS, masterSignWindowMs: 60_000 });
      const server = await createApp(app, { logger: createLogger('silent') });
      const res = await server.inject({
        method: 'POST', url: '/1.1/classes/Game', payload: { score: 1, title: 'x', meta: { a: 1 } },
        headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey },
      });
      assert.equal(res.statusCode, 201, res.body);
      await server.close();
      await db.close();
    });
    after(async () => {
      if (engine === 'postgres') {
        const db = await open();
        await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await db.close();
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('add, list and drop print what they did and exit 0', () => {
      const add = cli('add', 'Game', 'score');
      assert.equal(add.status, 0, add.stderr);
      const name = fieldIndexName('Game', 'score');
      assert.ok(add.stdout.includes(`Created index ${name} on Game.score (Number): btree (((data->>'score')::numeric) NULLS FIRST, "objectId")`), add.stdout);
      assert.match(add.stdout, /Created index \S+ on Game\.score \(Number\): btree \(\(\(data->>'score'\)::numeric\) NULLS FIRST, "objectId"\)/);
      assert.ok(cli('add', 'Game', 'score').stdout.includes(`Index ${name} on Game.score already exists.`));
      assert.ok(cli('add', 'Game', 'createdAt').stdout.includes(`indexed by every class table already (index ${indexName('Game', 'createdAt')})`));
      const list = cli('list');
      assert.equal(list.status, 0, list.stderr);
      assert.ok(list.stdout.includes(`Game.score\t${name}\tNumber\tbtree (`), list.stdout);
      assert.match(list.stdout, /\tready\n$/);
      const drop = cli('drop', 'Game', 'score');
      assert.equal(drop.status, 0, drop.stderr);
      assert.ok(drop.stdout.includes(`Dropped index ${name} on Game.score.`));
      assert.match(cli('list', 'Game').stdout, /No indexes made with 'index add' on Game\./);
    });

    test('mistakes exit 2 with a clear message', () => {
      const cases: [string[], RegExp][] = [
        [['add', 'Game'], /'index add' takes a class and a field/],
        [['rebuild'], /unknown index command 'rebuild'/],
        [[], /usage: larder index add/],
        [['add', 'Nope', 'score'], /Class 'Nope' does not exist/],
        [['add', 'Game', 'missing'], /Class 'Game' has no field 'missing' \(its fields: meta, score, title\)/],
        [['add', 'Game', 'meta'], /"meta" cannot be indexed: only String, Number, Boolean, Date, Pointer and Array fields/],
        [['add', 'Game', 'x;drop'], /Invalid field name 'x;drop'/],
        [['drop', 'Game', 'title'], /There is no index on Game\.title made with 'index add'/],
      ];
      for (const [args, message] of cases) {
        const res = cli(...args);
        assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
        assert.match(res.stderr, message);
      }
    });
  });
}
