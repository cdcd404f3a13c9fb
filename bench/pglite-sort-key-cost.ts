/**
 * `tsx bench/pglite-sort-key-cost.ts [--rounds 10] [--runs 200]`
 *
 * The embedded engine's side of "The sort key as a double; typed columns measured field by field" (docs/benchmarks.md; the double costs PGlite more, so it keeps numeric): an in-memory
 * PGlite with a table shaped like the peer bench's `Bench` (10,000 rows, `n` uniform in
 * [0, 10,000), `score`, an owner pointer, public rows; the index `larder index add` makes on `n`;
 * analyzed), and the `c` page statement with the numeric sort key (`numeric`) against the double
 * one (`float8`), each prepared (PREPARE / EXECUTE, so on generic plans after five runs), on their
 * own random windows, interleaved (bench/interleaved-rounds.ts). CPU of this process per execution
 * (PGlite runs in it). Answers are checked equal first. For tuning by hand; not part of `npm run bench`.
 */
import { PGlite } from '@electric-sql/pglite';
import { arg } from './cli-args.ts';
import { interleavedRounds } from './interleaved-rounds.ts';
import { medianOf as median } from './process-cpu.ts';

const page = (key: string) => `SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text
  FROM (SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text
        FROM (SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench"
              WHERE ((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric)) AND rperm && '{*}'::text[]
              ORDER BY ${key} DESC NULLS LAST, "objectId" DESC LIMIT $3 OFFSET $4) q
        OFFSET 0) p`;

const VARIANTS: Record<string, string> = {
  numeric: page(`((data->>'score')::numeric)`),
  float8: page(`((data->>'score')::float8)`),
};

async function main(): Promise<void> {
  const rounds = Number(arg('--rounds', '10'));
  const runs = Number(arg('--runs', '200'));
  const db = new PGlite();
  await db.exec(`CREATE TABLE "Bench" ("objectId" text PRIMARY KEY, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL, acl jsonb, rperm text[] NOT NULL, wperm text[] NOT NULL, data jsonb NOT NULL DEFAULT '{}')`);
  await db.exec(`INSERT INTO "Bench" SELECT md5(i::text), now(), now(), NULL, '{*}', '{*}',
      jsonb_build_object('n', floor(random() * 10000)::int, 's', 's-' || i, 'tags', jsonb_build_array('t' || (i % 50), 't' || (i % 7)),
        'owner', jsonb_build_object('__type', 'Pointer', 'objectId', md5((i % 100)::text), 'className', '_User'),
        'score', round((random() * 1000)::numeric, 6), 'counter', 0)
    FROM generate_series(1, 10000) i`);
  await db.exec(`CREATE INDEX bench_n ON "Bench" (((data->>'n')::numeric) NULLS FIRST, "objectId")`);
  await db.exec(`CREATE INDEX bench_rperm ON "Bench" USING gin (rperm) WITH (fastupdate = off)`);
  await db.exec('ANALYZE "Bench"');
  const names = Object.keys(VARIANTS);
  for (const n of names) await db.exec(`PREPARE ${n}(numeric, numeric, int, int, int) AS ${VARIANTS[n]}`);
  const run = (n: string, x: number) => db.query<{ objectId: string }>(`EXECUTE ${n}(${x}, ${x + 100}, 20, 0, 3355443)`);
  for (let k = 0; k < 8; k++) {
    const x = (k * 1237) % 9900;
    const [a, b] = [await run('numeric', x), await run('float8', x)];
    if (a.rows.map((r) => r.objectId).join() !== b.rows.map((r) => r.objectId).join()) throw new Error(`answers differ at ${x}`);
  }
  const per = await interleavedRounds(names, rounds, runs, async (n) => {
    const before = process.cpuUsage();
    await run(n, Math.floor(Math.random() * 9900));
    const used = process.cpuUsage(before);
    return (used.user + used.system) * 1000;
  });
  console.log(`${rounds} rounds x ${runs} executions`);
  const base = per.numeric.map((ns) => ns / runs / 1000);
  for (const n of names) {
    const us = per[n].map((ns) => ns / runs / 1000);
    const diffs = us.map((u, i) => u - base[i]);
    console.log(`${n.padEnd(8)} median ${median(us).toFixed(0)} us  vs numeric ${median(diffs).toFixed(1)} us (below in ${diffs.filter((d) => d < 0).length}/${rounds})  rounds ${us.map((u) => u.toFixed(0)).join(' ')}`);
  }
  await db.close();
}

await main();
