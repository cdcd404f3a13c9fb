/**
 * `tsx bench/range-statement-cost.ts --db <url> [--rounds 6] [--runs 400] [--only a,b]`
 *
 * Backend CPU per execution of variants of the peer bench's range statement (workload c: `n` in a
 * window of 100, `order=-score`, limit 20) on one connection, each variant a named prepared
 * statement as the server runs it, CPU from /proc/<backend pid>/schedstat (ns). The database: a
 * copy of one the peer bench seeded (schema `larder`, class `Bench` with the index on `n`).
 * Variants are interleaved per execution (see the loop for why each gets its own x and a random
 * place). Prints medians over the rounds and how many generic and custom plans each variant's
 * executions used. Every variant's answer (ids in order) is checked equal to the first's before
 * measuring. For tuning by hand (docs/benchmarks.md, issue 16); not part of `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { arg } from './cli-args.ts';
import { interleavedRounds } from './interleaved-rounds.ts';

const FILTER = `((((data->>'n')::numeric) >= $2::numeric AND ((data->>'n')::numeric) < $3::numeric)) AND rperm && '{*}'::text[]`;
const ORDER = `((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC`;

/** The statement as the server sends it, with the inner filter, order and document text swapped. */
function page(filter: string, order: string, text = 'q.data::text'): string {
  return `SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $1 THEN p.data_text END AS data_text
    FROM (SELECT q."objectId", q."createdAt", q."updatedAt", ${text} AS data_text
          FROM (SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench" WHERE ${filter} ORDER BY ${order} LIMIT $4 OFFSET $5) q
          OFFSET 0) p`;
}

/**
 * The page folded into one row (docs/benchmarks.md, "Range query c: the page as one row"): `columns`
 * are aggregates over the page's rows `p` (data_text, objectId, createdAt, updatedAt), with the
 * size-bound flag as pageStatement tests it. Not Larder's statement: measured and dropped.
 */
function foldedSelect(columns: string): string {
  return `SELECT count(*)::int AS n, coalesce(bool_and(octet_length(p.data_text) <= $1), true) AS whole, ${columns}
    FROM (SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text
          FROM (SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench" WHERE ${FILTER} ORDER BY ${ORDER} LIMIT $4 OFFSET $5) q
          OFFSET 0) p`;
}

/** foldedSelect with one string_agg of `object` per row within its share, separated by `sep`. */
function folded(object: string, sep = `','`): string {
  return foldedSelect(`string_agg(CASE WHEN octet_length(p.data_text) <= $1 THEN ${object} END, ${sep}) AS "objectId"`);
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** The wire object's text as rowJson (src/objects/raw-json.ts) builds it, made in SQL. */
const WIRE_OBJECT = `CASE WHEN p.data_text = '{}' THEN '{' ELSE left(p.data_text, -1) || ',' END || '"objectId":' || to_json(p."objectId")::text
      || ',"createdAt":"' || to_char(p."createdAt" AT TIME ZONE 'UTC', ${ISO}) || '","updatedAt":"' || to_char(p."updatedAt" AT TIME ZONE 'UTC', ${ISO}) || '"}'`;
const FIELDS = `p.data_text || chr(1) || p."objectId" || chr(1) || p."createdAt"::text || chr(1) || p."updatedAt"::text`;

const VARIANTS: Record<string, string> = {
  now: page(FILTER, ORDER),
  jsonbCast: page(FILTER, `((data->'score')::numeric) DESC NULLS LAST, "objectId" DESC`),
  noAcl: page(FILTER.replace(` AND rperm && '{*}'::text[]`, ' AND $1::int > 0'), ORDER),
  anyAcl: page(FILTER.replace(`rperm && '{*}'::text[]`, `'*' = ANY(rperm)`), ORDER),
  idsOnly: page(FILTER, ORDER, `q."objectId"`),
  noSort: page(FILTER, `"objectId" DESC`),
  guarded: page(FILTER, `(CASE WHEN jsonb_typeof(data->'score') = 'number' THEN (data->'score')::numeric ELSE (data->>'score')::numeric END) DESC NULLS LAST, "objectId" DESC`),
  jsonbOrder: page(FILTER, `(data->'score') DESC NULLS LAST, "objectId" DESC`),
  nullifCast: page(FILTER, `((NULLIF(data->'score', 'null'))::numeric) DESC NULLS LAST, "objectId" DESC`),
  stringSafe: page(FILTER, `(CASE WHEN jsonb_typeof(data->'score') = 'string' THEN (data->>'score')::numeric ELSE (NULLIF(data->'score', 'null'))::numeric END) DESC NULLS LAST, "objectId" DESC`),
  // The same statement, its generic plan made with bitmap scans off (an index scan of the n index).
  indexScan: `${page(FILTER, ORDER)} -- index scan`,
  // The same statement run with effective_io_concurrency = 0 (no bitmap heap scan prefetching).
  noPrefetch: `${page(FILTER, ORDER)} -- no prefetch`,
  // The page folded into one row: the answer's whole results text (server splices nothing) ...
  folded: folded(WIRE_OBJECT),
  // ... the same with the timestamps as PostgreSQL prints them (no to_char), then its parts alone ...
  foldedPlainTs: folded(`left(p.data_text, -1) || ',"objectId":' || to_json(p."objectId")::text || ',"createdAt":"' || p."createdAt"::text || '","updatedAt":"' || p."updatedAt"::text || '"}'`),
  foldedLeft: folded(`left(p.data_text, -1)`),
  foldedToJson: folded(`p.data_text || to_json(p."objectId")::text`),
  // ... the documents' text alone (the floor of folding) ...
  foldedText: folded('p.data_text'),
  // ... and the rows' four fields joined by control characters (the server splits and splices them).
  foldedRaw: folded(FIELDS, 'chr(2)'),
  foldedConcatWs: folded(`concat_ws(chr(1), p.data_text, p."objectId", p."createdAt", p."updatedAt")`, 'chr(2)'),
  foldedTwo: foldedSelect(`string_agg(p.data_text, chr(2)) AS "objectId", string_agg(p."objectId" || chr(1) || p."createdAt"::text || chr(1) || p."updatedAt"::text, chr(2)) AS ids`),
  foldedFour: foldedSelect(`string_agg(p.data_text, chr(2)) AS "objectId", string_agg(p."objectId", chr(2)) AS ids,
      string_agg(p."createdAt"::text, chr(2)) AS c, string_agg(p."updatedAt"::text, chr(2)) AS u`),
  // The statement as now, its result columns in binary format (timestamps as 8-byte integers).
  nowBinary: `${page(FILTER, ORDER)} -- binary`,
  trivial: `SELECT $1::int + $2::int + $3::int + $4::int + $5::int AS "objectId"`,
};

function cpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const url = arg('--db', '');
  const rounds = Number(arg('--rounds', '6'));
  const runs = Number(arg('--runs', '400'));
  const only = arg('--only', '');
  const names = Object.keys(VARIANTS).filter((n) => !only || only.split(',').includes(n));
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('SET search_path = larder');
  const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  // `binary` (result columns in binary format) is a query option of node-postgres its types leave out.
  const run = (name: string, x: number) => {
    const config: pg.QueryConfig & { binary?: boolean } = { name, text: VARIANTS[name], values: [3355443, x, x + 100, 20, 0], binary: name === 'nowBinary' };
    return c.query(config);
  };
  // Same answers (ids in order), and past the five custom plans before measuring.
  for (let k = 0; k < 8; k++) {
    const x = (k * 1237) % 9900;
    const want = (await run(names[0], x)).rows.map((r) => r.objectId).join();
    for (const n of names.slice(1)) {
      if (n === 'indexScan') await c.query('SET enable_bitmapscan = off');
      const got = (await run(n, x)).rows.map((r) => r.objectId).join();
      if (n === 'indexScan') await c.query('RESET enable_bitmapscan');
      // The folded variants answer one row (their ids are not compared).
      if (got !== want && n !== 'noSort' && n !== 'trivial' && !n.startsWith('folded')) throw new Error(`${n} differs from ${names[0]} at x=${x}`);
    }
  }
  // Interleaved per execution, each variant on its own random x (a variant run on an x that the
  // previous one just read finds its pages in the CPU caches: about 35 us cheaper), in a fresh
  // random order each time. A round is `runs` executions of each.
  const per = await interleavedRounds(names, rounds, runs, async (n) => {
    if (n === 'noPrefetch') await c.query('SET effective_io_concurrency = 0');
    const before = cpuNs(pid);
    await run(n, Math.floor(Math.random() * 9900));
    const used = cpuNs(pid) - before;
    if (n === 'noPrefetch') await c.query('RESET effective_io_concurrency');
    return used;
  });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${rounds} rounds x ${runs} executions, load ${load}`);
  for (const n of names) {
    const us = per[n].map((ns) => ns / runs / 1000);
    console.log(`${n.padEnd(12)} median ${median(us).toFixed(0)} us  rounds ${us.map((u) => u.toFixed(0)).join(' ')}`);
  }
  // Which plans the executions used: a variant left on custom plans pays planning every time.
  const plans = await c.query<{ name: string; generic_plans: string; custom_plans: string }>('SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name');
  for (const p of plans.rows) console.log(`${p.name.padEnd(12)} generic plans ${p.generic_plans}, custom plans ${p.custom_plans}`);
  await c.end();
}

await main();
