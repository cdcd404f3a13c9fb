/**
 * What the hand-run statement-cost scripts of include (bench/include-cache-cost.mjs,
 * bench/include-statement-cost.mjs) share: one connection to a database the peer bench seeded
 * (schema `larder`), its backend's CPU from /proc/<pid>/schedstat (so run them on the database's
 * machine), h's page as the joint statement starts it (src/objects/page-includes.ts), and the
 * measuring: named (prepared) statements, variants interleaved (the order reversed every other
 * round), random windows of `n`, CPU per execution in us, printed as medians over the rounds.
 * Plain JavaScript, like the scripts (run with `node`, no TypeScript loader).
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';

/** The _User fields the joint statement leaves out of an included owner's document ($8). */
export const STRIP = ['password', 'salt', 'sessionToken', 'authData', '_password_hash', '_failed_logins', '_email_verify_token', '_perishable_token', 'email', 'mobilePhoneNumber'];

/** The page of workload h (`n` in [$1, $2), order -score, limit $3, skip $4) with its `owner` pointer. */
export const PAGE = `WITH page AS MATERIALIZED (SELECT q."objectId", q."createdAt", q."updatedAt", q.data::text AS data_text, q.data->'owner' AS ptr_0
  FROM (SELECT "objectId", "createdAt", "updatedAt", data FROM "Bench" WHERE ((((data->>'n')::numeric) >= $1::numeric AND ((data->>'n')::numeric) < $2::numeric)) AND rperm && '{*}'::text[] ORDER BY ((data->>'score')::numeric) DESC NULLS LAST, "objectId" DESC LIMIT $3 OFFSET $4) q)`;

/** The page's rows as the first part of the answer (documents up to $5 bytes), `extra` columns after them. */
export const pageRows = (extra = '') => `SELECT 0 AS part, b.* FROM (SELECT p."objectId", p."createdAt", p."updatedAt", CASE WHEN octet_length(p.data_text) <= $5 THEN p.data_text END AS data_text${extra} FROM page p) b UNION ALL`;

/** One connection with `larder` on its search path, and its backend's CPU so far (ns). */
export async function openBackend(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('SET search_path = larder');
  const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  return { client, cpu: () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) };
}

/**
 * Runs each variant (`name: [text, extra values after $7]`) `per` times a round, `rounds` rounds,
 * and returns each one's backend CPU per execution by round, us.
 */
export async function measureVariants({ client, cpu }, variants, rounds, per) {
  const res = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const keys = Object.keys(variants); if (r % 2) keys.reverse();
    for (const k of keys) {
      const [text, extra] = variants[k];
      const t0 = cpu();
      for (let i = 0; i < per; i++) {
        const x = Math.floor(Math.random() * 9900);
        await client.query({ name: `v_${k}`, text, values: [x, x + 100, 20, 0, 3355443, 1, '_User', ...extra] });
      }
      res[k].push((cpu() - t0) / per / 1000);
    }
  }
  return res;
}

/** The upper median. */
export const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];

/** One line a variant: its median and every round's figure, us. */
export function printMedians(res) {
  for (const k of Object.keys(res)) console.log(k, 'median us', median(res[k]).toFixed(0), res[k].map((v) => v.toFixed(0)).join(' '));
}
