/**
 * `node bench/include-cache-cost.mjs <database url> [rounds 10] [executions 300]`
 *
 * PostgreSQL backend CPU per execution (/proc/<pid>/schedstat, so run it on the database's machine)
 * of h's joint statement (page + owners by a join, src/objects/page-includes.ts) on a database the
 * peer bench seeded (schema `larder`), three ways of reading the owners: their stripped documents
 * (`docs`, main before the cache), each one's row version and document (`text`, what a head reads
 * while the cache misses), and the version alone (`version`, what it reads once the cache holds
 * them: src/objects/included-cache.ts). One connection, named (prepared) statements, variants
 * interleaved, random windows of `n`. docs/benchmarks.md, "Include's documents kept by row version".
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
const c = new pg.Client({ connectionString: process.argv[2] });
await c.connect();
await c.query('SET search_path = larder');
const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const cpu = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const page = `WITH page AS MATERIALIZED (SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text, q.data->'owner' AS ptr_0
  FROM (SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench" WHERE ((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric)) AND rperm && '{*}'::text[] ORDER BY ((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC LIMIT $3 OFFSET $4) q)
  SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text FROM page p) b UNION ALL `;
const owners = (cols) => `SELECT $6::int, "objectId", ${cols} FROM (SELECT DISTINCT i.id FROM (SELECT p.ptr_0->>'objectId' FROM page p WHERE p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text) AS i(id)) AS ids JOIN "_User" ON "objectId" = ids.id WHERE rperm && '{*}'::text[]`;
const strip = ['password', 'salt', 'sessionToken', 'authData', '_password_hash', '_failed_logins', '_email_verify_token', '_perishable_token', 'email', 'mobilePhoneNumber'];
const version = `"_User".xmin::text || ':' || "_User".ctid::text`;
const V = {
  docs: [page + owners('"createdAt", "updatedAt", (data - $8::text[])::text'), [strip]],
  text: [page + owners(`"createdAt", "updatedAt", ${version} || ' ' || (data - $8::text[])::text`), [strip]],
  version: [page + owners(`NULL, NULL, ${version}`), []],
};
const rounds = Number(process.argv[3] ?? 10), per = Number(process.argv[4] ?? 300);
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
const pairs = res.version.filter((v, i) => v < res.docs[i]).length;
console.log(`version below docs in ${pairs} of ${rounds} rounds; text below docs in ${res.text.filter((v, i) => v < res.docs[i]).length}`);
await c.end();
