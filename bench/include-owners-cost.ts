/**
 * `tsx bench/include-owners-cost.ts --db <url> [--rounds 8] [--runs 300] [--only a,b] [--loop <variant> --seconds 20] [--set k=v]`
 *
 * Backend CPU per execution of variants of h's joint statement (page + owners, read with the
 * owners' versions only, as a warm head reads: src/objects/page-includes.ts) on one connection,
 * each variant a named prepared statement as the server runs it (generic plans after the first
 * five), CPU from /proc/<backend pid>/schedstat. The database: a copy of one the peer bench seeded
 * (schema `larder`, `Bench` with the index on `n`, 100 `_User` rows). Variants interleaved per
 * execution, each on its own random window in a fresh random order (range-statement-cost.ts says
 * why). Every variant's answer (page ids in order, then the owners' ids sorted) is checked equal
 * to `now`'s first. docs/benchmarks.md, "Include's owners in the joint statement: where its time goes".
 * For tuning by hand; not part of `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { interleavedRounds } from './interleaved-rounds.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const INNER = `SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench" WHERE ((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric)) AND rperm && '{*}'::text[] ORDER BY ((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC LIMIT $3 OFFSET $4`;
const PAGE_ROWS = (extra: string) => `SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text${extra} FROM (${INNER}) q`;
const BOUNDED = `SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text FROM page p`;
const JOINT = (extra: string, branch: string) => `WITH page AS MATERIALIZED (${PAGE_ROWS(extra)})
  SELECT 0 AS part, b.* FROM (${BOUNDED}) b UNION ALL ${branch}`;
const PTR = `, q.data->'owner' AS ptr_0`;
const IDS = `SELECT p.ptr_0->>'objectId' FROM page p WHERE p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text`;
const VERSION = `"_User".xmin::text || ':' || "_User".ctid::text`;
const ACL = `rperm && '{*}'::text[]`;
/** The owners' branch as now (plan/plan-rows.ts selectJoinedByIdsOf) with other columns or ids. */
const joined = (cols: string, ids = IDS) =>
  `SELECT $6::int, "objectId", NULL, NULL, ${cols} FROM (SELECT DISTINCT i.id FROM (${ids}) AS i(id)) AS ids JOIN "_User" ON "objectId" = ids.id WHERE ${ACL}`;

const VARIANTS: Record<string, string> = {
  now: JOINT(PTR, joined(VERSION)),
  // The page statement of c (no include), as page-budget.ts pageStatement.
  c: `SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text FROM (${PAGE_ROWS('')} OFFSET 0) p`,
  // The CTE and the page's branch, an owners' branch that reads nothing.
  noOwners: JOINT(PTR, `SELECT $6::int, NULL, NULL, NULL, NULL WHERE $7::text IS NULL`),
  // The owners' ids without their versions.
  idsOnly: JOINT(PTR, joined('NULL')),
  // The version without the ':' join (size of the concatenation).
  xminOnly: JOINT(PTR, joined('"_User".xmin::text')),
  // No ACL test on the owners (not a candidate: its size).
  noAcl: JOINT(PTR, joined(VERSION).replace(`WHERE ${ACL}`, '')),
  // The ACL test on the joined rows only, not on every row of the scan (a join filter).
  aclAfter: JOINT(PTR, joined(VERSION).replace(`WHERE ${ACL}`, `WHERE CASE WHEN ids.id IS NOT NULL THEN ${ACL} END`)),
  // The primary key probed per distinct id (a nested loop, whatever the class's size).
  lateral: JOINT(PTR, `SELECT $6::int, u."objectId", NULL, NULL, u.v FROM (SELECT DISTINCT i.id FROM (${IDS}) AS i(id)) AS ids
    CROSS JOIN LATERAL (SELECT "objectId", ${VERSION} AS v FROM "_User" WHERE "objectId" = ids.id AND ${ACL} OFFSET 0) u`),
  // The array form (the embedded engine's: selectByIdsOf).
  anyArray: JOINT(PTR, `SELECT $6::int, "objectId", NULL, NULL, ${VERSION} FROM "_User" WHERE "objectId" = ANY(ARRAY(${IDS})) AND ${ACL}`),
  // The pointer's id worked out in the page's CTE (one text column, not the pointer's jsonb).
  idInCte: JOINT(
    `, CASE WHEN q.data->'owner'->>'__type' = 'Pointer' AND q.data->'owner'->>'className' = $7::text THEN q.data->'owner'->>'objectId' END AS id_0`,
    joined(VERSION, `SELECT p.id_0 FROM page p WHERE p.id_0 IS NOT NULL`),
  ),
  // The read ACL as `'*' = ANY(rperm)` (the anonymous reader's readers are exactly '*').
  anyAcl: JOINT(PTR, joined(VERSION).replace(`WHERE ${ACL}`, `WHERE '*' = ANY(rperm)`)),
  // aclAfter with the ids without their versions.
  aclAfterIds: JOINT(PTR, joined('NULL').replace(`WHERE ${ACL}`, `WHERE CASE WHEN ids.id IS NOT NULL THEN ${ACL} END`)),
  // The same text as now, its generic plan made with hash joins and sequential scans off: the
  // primary key probed per distinct id (what a larger class gets; not something a statement can ask for).
  nowNL: `${JOINT(PTR, joined(VERSION))} -- nested loop`,
  // The same texts, their generic plans made with random_page_cost = 1.1 (the usual advice for
  // SSDs; a setting of the whole server, not of Larder): the n index scanned in order, the
  // primary key probed per owner.
  nowRPC: `${JOINT(PTR, joined(VERSION))} -- random_page_cost`,
  cRPC: `SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text FROM (${PAGE_ROWS('')} OFFSET 0) p -- random_page_cost`,
  aclAfterRPC: `${JOINT(PTR, joined(VERSION).replace(`WHERE ${ACL}`, `WHERE CASE WHEN ids.id IS NOT NULL THEN ${ACL} END`))} -- random_page_cost`,
  // The page on typed columns (n_num, score_num: stored generated numeric columns, an index on
  // n_num; only on a copy made with --typed): what a typed column for indexed fields would save.
  typed: JOINT(PTR, joined(VERSION)).replace(`((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric))`, `(n_num >= $1::numeric AND n_num < $2::numeric)`).replace(`((data->>'score')::numeric) DESC`, `score_num DESC`),
  // The ACL test on the joined rows, outside a subquery fence (OFFSET 0) instead of a CASE.
  fenced: JOINT(PTR, `SELECT $6::int, j."objectId", NULL, NULL, j.v FROM (SELECT "_User"."objectId", "_User".rperm, ${VERSION} AS v FROM (SELECT DISTINCT i.id FROM (${IDS}) AS i(id)) AS ids JOIN "_User" ON "objectId" = ids.id OFFSET 0) j WHERE j.${ACL}`),
  // aclAfter with the ACL as `'*' = ANY(rperm)`.
  aclAfterAny: JOINT(PTR, joined(VERSION).replace(`WHERE ${ACL}`, `WHERE CASE WHEN ids.id IS NOT NULL THEN '*' = ANY(rperm) END`)),
  // The array form, its generic plan made with sequential scans off (the primary key, the ids as an array).
  anyArrayNL: `SELECT * FROM (${JOINT(PTR, `SELECT $6::int, "objectId", NULL, NULL, ${VERSION} FROM "_User" WHERE "objectId" = ANY(ARRAY(${IDS})) AND ${ACL}`)}) x -- NL`,
  // The owners' branch without _User: the page's distinct ids alone (what the join adds to it).
  idsNoUser: JOINT(PTR, `SELECT $6::int, ids.id, NULL, NULL, NULL FROM (SELECT DISTINCT i.id FROM (${IDS}) AS i(id)) AS ids`),
  // No CTE and no second branch: each page row joined to its owner's version (LEFT JOIN, the
  // ACL in the join), the page's order restored by sorting its 20 rows on the carried sort key.
  leftJoin: `SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text, u."objectId" AS id_0, ${VERSION.replaceAll('"_User"', 'u')} AS v_0
    FROM (SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text, q.data->'owner' AS ptr_0, q.k
          FROM (${INNER.replace('data FROM "Bench"', `data, ((data->>'score')::numeric) AS k FROM "Bench"`)}) q OFFSET 0) p
    LEFT JOIN "_User" u ON u."objectId" = p.ptr_0->>'objectId' AND p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text AND u.${ACL} AND $6::int = 1
    ORDER BY p.k DESC NULLS LAST, p."objectId" DESC`,
  // aclAfter with the owners' ids and versions in one row (`<id> <version>` joined by spaces):
  // one DataRow instead of ~17.
  aggRow: JOINT(PTR, `SELECT $6::int, NULL, NULL, NULL, string_agg("objectId" || ' ' || ${VERSION}, ' ') FROM (SELECT DISTINCT i.id FROM (${IDS}) AS i(id)) AS ids JOIN "_User" ON "objectId" = ids.id WHERE CASE WHEN ids.id IS NOT NULL THEN ${ACL} END HAVING count(*) > 0`),
  // A semi-join of _User to the page's ids (no DISTINCT step).
  semi: JOINT(PTR, `SELECT $6::int, "objectId", NULL, NULL, ${VERSION} FROM "_User" WHERE "objectId" IN (${IDS}) AND ${ACL}`),
};

function cpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

interface Row {
  part: number;
  objectId: string;
}

/** Page ids in order, then the owners' ids sorted: what a variant must answer like `now`. */
function answerOf(rows: Row[]): string {
  const agg = rows.find((r) => r.part && r.objectId === null);
  if (agg) {
    const text = (agg as Row & { data_text: string }).data_text.split(' ');
    const ids = text.filter((_, i) => i % 2 === 0).sort();
    return `${rows.filter((r) => !r.part).map((r) => r.objectId).join()}|${ids.join()}`;
  }
  if (rows.length && 'id_0' in rows[0]) {
    const ids = new Set(rows.map((r) => (r as Row & { id_0: string | null }).id_0).filter((x) => x !== null));
    return `${rows.map((r) => r.objectId).join()}|${[...ids].sort().join()}`;
  }
  const page = rows.filter((r) => !r.part).map((r) => r.objectId);
  const owners = rows.filter((r) => !!r.part).map((r) => r.objectId).sort();
  return `${page.join()}|${owners.join()}`;
}

async function main(): Promise<void> {
  const url = arg('--db', '');
  const rounds = Number(arg('--rounds', '8'));
  const runs = Number(arg('--runs', '300'));
  const only = arg('--only', '');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('SET search_path = larder');
  // `--set random_page_cost=1.1`: a setting of the session for every variant.
  for (const kv of arg('--set', '').split(',').filter(Boolean)) {
    const [k, v] = kv.split('=');
    if (!/^[a-z_]+$/.test(k) || !/^[\w.]+$/.test(v)) throw new Error(`bad setting ${kv}`);
    await c.query(`SET ${k} = '${v}'`);
  }
  const typed = (await c.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = 'larder' AND table_name = 'Bench' AND column_name = 'n_num'`)).rows.length > 0;
  const names = Object.keys(VARIANTS).filter((n) => (!only || n === 'now' || only.split(',').includes(n)) && (n !== 'typed' || typed));
  const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const run = (name: string, x: number) => c.query<Row>({ name, text: VARIANTS[name], values: name === 'c' || name === 'cRPC' ? [x, x + 100, 20, 0, 3355443] : [x, x + 100, 20, 0, 3355443, 1, '_User'] });
  // `--loop <variant> --seconds <s>`: that variant alone in a loop, for `perf record -p <pid>`.
  const loop = arg('--loop', '');
  if (loop) {
    console.log(`backend pid ${pid}`);
    const end = Date.now() + Number(arg('--seconds', '20')) * 1000;
    let n = 0;
    for (; Date.now() < end; n++) await run(loop, Math.floor(Math.random() * 9900));
    console.log(`${n} executions`);
    await c.end();
    return;
  }
  for (let k = 0; k < 8; k++) {
    const x = (k * 1237) % 9900;
    const want = answerOf((await run('now', x)).rows);
    for (const n of names) {
      if (n.endsWith('NL')) await c.query('SET enable_hashjoin = off; SET enable_seqscan = off; SET enable_mergejoin = off');
      if (n.endsWith('RPC')) await c.query('SET random_page_cost = 1.1');
      const got = answerOf((await run(n, x)).rows);
      const same = n === 'c' || n === 'cRPC' || n === 'noOwners' ? got.split('|')[0] === want.split('|')[0] : got === want;
      if (n.endsWith('NL')) await c.query('RESET enable_hashjoin; RESET enable_seqscan; RESET enable_mergejoin');
      if (n.endsWith('RPC')) await c.query('RESET random_page_cost');
      if (!same) throw new Error(`${n} differs from now at x=${x}`);
    }
  }
  const per = await interleavedRounds(names, rounds, runs, async (n) => {
    const before = cpuNs(pid);
    await run(n, Math.floor(Math.random() * 9900));
    return cpuNs(pid) - before;
  });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${rounds} rounds x ${runs} executions, load ${load}`);
  const base = per.now.map((ns) => ns / runs / 1000);
  for (const n of names) {
    const us = per[n].map((ns) => ns / runs / 1000);
    const diffs = us.map((u, i) => u - base[i]);
    const below = diffs.filter((d) => d < 0).length;
    console.log(`${n.padEnd(10)} median ${median(us).toFixed(0)} us  vs now ${median(diffs) >= 0 ? '+' : ''}${median(diffs).toFixed(0)} us (below in ${below}/${rounds})  rounds ${us.map((u) => u.toFixed(0)).join(' ')}`);
  }
  const plans = await c.query<{ name: string; generic_plans: string; custom_plans: string }>('SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name');
  for (const p of plans.rows) console.log(`${p.name.padEnd(10)} generic plans ${p.generic_plans}, custom plans ${p.custom_plans}`);
  await c.end();
}

await main();
