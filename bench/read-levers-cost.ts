/**
 * `tsx bench/read-levers-cost.ts --db <url> [--rounds 8] [--runs 200] [--only a,b] [--typed]`
 *
 * Backend CPU per execution of variants of the peer bench's `c` page statement and `h` joint
 * statement (owners' versions only, as a warm head reads: src/objects/page-includes.ts) as the
 * server runs them on a narrow read's connection (`random_page_cost = 1.1`,
 * src/storage/narrow-reads.ts), each a named prepared statement on its generic plan, on one
 * connection, CPU from /proc/<backend pid>/schedstat, variants interleaved on their own random
 * windows (bench/interleaved-rounds.ts). Every variant's answer (page ids in order, then the
 * owners' ids sorted) is checked equal to its family's statement as it is first.
 *
 * `--typed` first adds, on the copy it is given, plain `numeric` columns `n_num` and `score_num`
 * filled from the documents and an index on `(n_num NULLS FIRST, "objectId")` (then VACUUM
 * ANALYZE), so that the typed variants can run: what typed columns would save, field by field.
 * The database: a copy of one the peer bench seeded (schema `larder`). docs/benchmarks.md,
 * "The sort key as a double; typed columns measured field by field". For tuning by hand; not part of
 * `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { arg } from './cli-args.ts';
import { interleavedRounds } from './interleaved-rounds.ts';
import { medianOf as median, schedCpuNs as cpuNs } from './process-cpu.ts';

const RANGE = `((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric))`;
const RANGE_TYPED = `(n_num >= $1::numeric AND n_num < $2::numeric)`;
const ACL = `rperm && '{*}'::text[]`;
const KEY = `((data->>'score')::numeric)`;

/** The page's inner SELECT with its range, sort key and selected columns swapped. */
function inner(range: string, key: string, cols = `"objectId", "createdAt", "updatedAt", data`): string {
  return `SELECT ${cols} FROM "Bench" WHERE ${range} AND ${ACL} ORDER BY ${key} DESC NULLS LAST, "objectId" DESC LIMIT $3 OFFSET $4`;
}

const pageRows = (sel: string, extra: string) => `SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text${extra} FROM (${sel}) q`;

/**
 * The page sorted on small tuples (the sort key, the id and the row's place), then its 20 rows
 * read again by place (a TID scan per row, same snapshot), in the sorted order.
 */
function lateRows(range: string, key: string, extra: string): string {
  return `SELECT t."objectId", t."createdAt", t."updatedAt", t.data::text AS data_text${extra.replaceAll('q.data', 't.data')}
    FROM (${inner(range, key, `ctid AS tid, "objectId", ${key} AS k`).replace(`ORDER BY ${key} DESC`, 'ORDER BY k DESC')}) q
    JOIN "Bench" t ON t.ctid = q.tid ORDER BY q.k DESC NULLS LAST, q."objectId" DESC`;
}

const BOUND = `CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text`;
const cStatement = (rows: string) => `SELECT p."objectId", p."createdAt", p."updatedAt", ${BOUND} FROM (${rows} OFFSET 0) p`;

const PTR = `, q.data->'owner' AS ptr_0`;
const IDS = `SELECT p.ptr_0->>'objectId' FROM page p WHERE p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text`;
const VERSION = `"_User".xmin::text || ':' || "_User".ctid::text`;
const OWNERS = `SELECT $6::int, "objectId", NULL, NULL, ${VERSION} FROM (SELECT DISTINCT i.id FROM (${IDS}) AS i(id)) AS ids JOIN "_User" ON "objectId" = ids.id WHERE ${ACL}`;
const hStatement = (rows: string) => `WITH page AS MATERIALIZED (${rows})
  SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", ${BOUND} FROM page p) b UNION ALL ${OWNERS}`;

const FLOAT_KEY = `((data->>'score')::float8)`;

/** Variants by family: `c` and `h` are the statements as the server sends them. */
const VARIANTS: Record<string, { family: 'c' | 'h'; typed?: boolean; text: string }> = {
  c: { family: 'c', text: cStatement(pageRows(inner(RANGE, KEY), '')) },
  cTypedN: { family: 'c', typed: true, text: cStatement(pageRows(inner(RANGE_TYPED, KEY), '')) },
  cTypedScore: { family: 'c', typed: true, text: cStatement(pageRows(inner(RANGE, 'score_num'), '')) },
  cTyped: { family: 'c', typed: true, text: cStatement(pageRows(inner(RANGE_TYPED, 'score_num'), '')) },
  cLate: { family: 'c', text: cStatement(lateRows(RANGE, KEY, '')) },
  cFloat: { family: 'c', text: cStatement(pageRows(inner(RANGE, FLOAT_KEY), '')) },
  h: { family: 'h', text: hStatement(pageRows(inner(RANGE, KEY), PTR)) },
  hTypedN: { family: 'h', typed: true, text: hStatement(pageRows(inner(RANGE_TYPED, KEY), PTR)) },
  hTypedScore: { family: 'h', typed: true, text: hStatement(pageRows(inner(RANGE, 'score_num'), PTR)) },
  hTyped: { family: 'h', typed: true, text: hStatement(pageRows(inner(RANGE_TYPED, 'score_num'), PTR)) },
  hLate: { family: 'h', text: hStatement(lateRows(RANGE, KEY, PTR)) },
  // With the double key (what the server sends since "The sort key as a double"), and on top of it:
  cF: { family: 'c', text: cStatement(pageRows(inner(RANGE, FLOAT_KEY), '')) },
  // the anonymous reader's ACL as `'*' = ANY(rperm)` (no GIN operator; only where the rperm index is no way in anyway);
  cFAny: { family: 'c', text: cStatement(pageRows(inner(RANGE, FLOAT_KEY), '')).replace(ACL, `'*' = ANY(rperm)`) },
  hF: { family: 'h', text: hStatement(pageRows(inner(RANGE, FLOAT_KEY), PTR)) },
  hFAny: { family: 'h', text: hStatement(pageRows(inner(RANGE, FLOAT_KEY), PTR)).replaceAll(ACL, `'*' = ANY(rperm)`) },
  // the owners' ACL tested on the joined rows only;
  hFAclAfter: { family: 'h', text: hStatement(pageRows(inner(RANGE, FLOAT_KEY), PTR)).replace(`ids.id WHERE ${ACL}`, `ids.id WHERE CASE WHEN ids.id IS NOT NULL THEN ${ACL} END`) },
  // the owners' versions as the tuple's xmin and ctid with no text made of them (size of the version text);
  hFNoVersion: { family: 'h', text: hStatement(pageRows(inner(RANGE, FLOAT_KEY), PTR)).replace(VERSION, 'NULL') },
  // the owners' ids without DISTINCT (a page of one owner's rows probes it 20 times; answers may repeat, so only its cost).
  hFIdsInCte: { family: 'h', text: hStatement(pageRows(inner(RANGE, FLOAT_KEY), `, CASE WHEN q.data->'owner'->>'__type' = 'Pointer' AND q.data->'owner'->>'className' = $7::text THEN q.data->'owner'->>'objectId' END AS ptr_0`)).replace(IDS, 'SELECT p.ptr_0 FROM page p WHERE p.ptr_0 IS NOT NULL') },
};

interface Row {
  part?: number;
  objectId: string;
}

/** Page ids in order, then the owners' ids sorted. */
function answerOf(rows: Row[]): string {
  const page = rows.filter((r) => !r.part).map((r) => r.objectId);
  const owners = rows.filter((r) => !!r.part).map((r) => r.objectId).sort();
  return `${page.join()}|${owners.join()}`;
}

async function addTypedColumns(c: pg.Client): Promise<void> {
  const has = await c.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = 'larder' AND table_name = 'Bench' AND column_name = 'n_num'`);
  if (has.rows.length) return;
  await c.query(`ALTER TABLE "Bench" ADD COLUMN n_num numeric, ADD COLUMN score_num numeric`);
  await c.query(`UPDATE "Bench" SET n_num = (data->>'n')::numeric, score_num = (data->>'score')::numeric`);
  await c.query(`CREATE INDEX bench_n_num ON "Bench" (n_num NULLS FIRST, "objectId")`);
  await c.query('VACUUM FULL "Bench"');
  await c.query('ANALYZE "Bench"');
}

async function main(): Promise<void> {
  const url = arg('--db', '');
  const rounds = Number(arg('--rounds', '8'));
  const runs = Number(arg('--runs', '200'));
  const only = arg('--only', '');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('SET search_path = larder');
  if (process.argv.includes('--typed')) await addTypedColumns(c);
  await c.query('SET random_page_cost = 1.1');
  const typed = (await c.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = 'larder' AND table_name = 'Bench' AND column_name = 'n_num'`)).rows.length > 0;
  const names = Object.keys(VARIANTS).filter((n) => (!only || only.split(',').includes(n)) && (typed || !VARIANTS[n].typed));
  const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const run = (name: string, x: number) => {
    const v = VARIANTS[name];
    return c.query<Row>({ name, text: v.text, values: v.family === 'c' ? [x, x + 100, 20, 0, 3355443] : [x, x + 100, 20, 0, 3355443, 1, '_User'] });
  };
  for (let k = 0; k < 8; k++) {
    const x = (k * 1237) % 9900;
    const want = { c: answerOf((await run('c', x)).rows), h: answerOf((await run('h', x)).rows) };
    for (const n of names) {
      const got = answerOf((await run(n, x)).rows);
      if (got !== want[VARIANTS[n].family]) throw new Error(`${n} differs from ${VARIANTS[n].family} at x=${x}: ${got} / ${want[VARIANTS[n].family]}`);
    }
  }
  for (const n of names) {
    const plan = await c.query(`EXPLAIN (COSTS OFF) EXECUTE "${n}"(5000, 5100, 20, 0, 3355443${VARIANTS[n].family === 'h' ? `, 1, '_User'` : ''})`);
    if (process.argv.includes('--plans')) console.log(`${n}:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  const per = await interleavedRounds(names, rounds, runs, async (n) => {
    const before = cpuNs(pid);
    await run(n, Math.floor(Math.random() * 9900));
    return cpuNs(pid) - before;
  });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${rounds} rounds x ${runs} executions, load ${load}`);
  for (const n of names) {
    const base = per[VARIANTS[n].family].map((ns) => ns / runs / 1000);
    const us = per[n].map((ns) => ns / runs / 1000);
    const diffs = us.map((u, i) => u - base[i]);
    const below = diffs.filter((d) => d < 0).length;
    console.log(`${n.padEnd(12)} median ${median(us).toFixed(0)} us  vs ${VARIANTS[n].family} ${median(diffs) >= 0 ? '+' : ''}${median(diffs).toFixed(1)} us (below in ${below}/${rounds})  rounds ${us.map((u) => u.toFixed(0)).join(' ')}`);
  }
  const plans = await c.query<{ name: string; generic_plans: string; custom_plans: string }>('SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name');
  for (const p of plans.rows) console.log(`${p.name.padEnd(12)} generic plans ${p.generic_plans}, custom plans ${p.custom_plans}`);
  await c.end();
}

await main();
