/**
 * `node bench/include-statement-cost.mjs <database url> [rounds 8] [executions 200]`
 *
 * PostgreSQL backend CPU per execution (/proc/<pid>/schedstat, so run it on the database's machine)
 * of variants of h's joint statement (page + owners, src/objects/page-includes.ts) on a database
 * the peer bench seeded (schema `larder`): as of 2026-11-27 12:30 (`base`), with each page row's
 * pointer text as a column (`ptr`), with the owners' stripped fields left out in SQL (`strip`, what
 * is used), and both. One connection, named (prepared) statements, variants interleaved, random
 * windows of `n`. docs/benchmarks.md, "Include answered by splicing text".
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
const c = new pg.Client({ connectionString: process.argv[2] });
await c.connect();
await c.query('SET search_path = larder');
const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const cpu = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const page = `WITH page AS MATERIALIZED (SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text, q.data->'owner' AS ptr_0
  FROM (SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench" WHERE ((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric)) AND rperm && '{*}'::text[] ORDER BY ((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC LIMIT $3 OFFSET $4) q)`;
const owners = (data, extraNull) => `SELECT $6::int, "objectId", "createdAt", "updatedAt", ${data}${extraNull} FROM "_User" WHERE "objectId" = ANY(ARRAY(SELECT p.ptr_0->>'objectId' FROM page p WHERE p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text)) AND rperm && '{*}'::text[]`;
const strip = ['password', 'salt', 'sessionToken', 'authData', '_password_hash', '_failed_logins', '_email_verify_token', '_perishable_token', 'email', 'mobilePhoneNumber'];
const V = {
  base: [`${page} SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text FROM page p) b UNION ALL ${owners('data::text', '')}`, []],
  ptr: [`${page} SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text, CASE WHEN octet_length(p.data_text) <= $5 THEN left(p.ptr_0::text, 256) END AS ptr_0 FROM page p) b UNION ALL ${owners('data::text', ', NULL::text')}`, []],
  strip: [`${page} SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text FROM page p) b UNION ALL ${owners('(data - $8::text[])::text', '')}`, [strip]],
  both: [`${page} SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text, CASE WHEN octet_length(p.data_text) <= $5 THEN left(p.ptr_0::text, 256) END AS ptr_0 FROM page p) b UNION ALL ${owners('(data - $8::text[])::text', ', NULL::text')}`, [strip]],
};
const rounds = Number(process.argv[3] ?? 8), per = Number(process.argv[4] ?? 200);
const res = Object.fromEntries(Object.keys(V).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  const keys = Object.keys(V); if (r % 2) keys.reverse();
  for (const k of keys) {
    const [text, extra] = V[k];
    const t0 = cpu();
    for (let i = 0; i < per; i++) {
      const x = Math.floor(Math.random() * 9900);
      await c.query({ name: `v_${k}`, text, values: [x, x + 100, 20, 0, 3355443, 1, '_User', ...extra] });
    }
    res[k].push((cpu() - t0) / per / 1000);
  }
}
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const k of Object.keys(V)) console.log(k, 'median us', med(res[k]).toFixed(0), res[k].map((v) => v.toFixed(0)).join(' '));
await c.end();
