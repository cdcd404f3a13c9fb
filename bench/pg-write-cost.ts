/**
 * `tsx bench/pg-write-cost.ts [--rows 10000] [--n 2000] [--rounds 3] [--only insert,update,rows]`
 *
 * PostgreSQL backend CPU per statement of a create's INSERT and a random increment's UPDATE, as
 * Larder sends them (named prepared statements), on a class table of Larder's shape (default
 * indexes + one field index, as the peer bench's `Bench`), with variants of the statement and of
 * the table's indexes, interleaved over rounds on one connection. CPU from /proc/<backend>/stat.
 * `rows`: the UPDATE of 8 random rows' Increments (combine-increments.ts runRows), with the rows
 * locked first in a CTE (FOR UPDATE SKIP LOCKED) and without; reported per row. `--groups 1,4,8,16`:
 * the locking statement with those numbers of rows instead of 8 alone.
 * For deciding what the database side of issue 16 can save; not part of `npm run bench`.
 */
import pg from 'pg';
import { createClassTable } from '../src/storage/class-table.ts';
import { SQL_FUNCTIONS } from '../src/storage/sql-functions.ts';
import { benchDatabaseUrl, ensureDatabase } from './bench-database.ts';
import { arg } from './cli-args.ts';
import { cpuOf } from './process-cpu.ts';

const SCHEMA = `pgcost_${process.pid}`;
const ROWS = Number(arg('--rows', '10000'));
const N = Number(arg('--n', '2000'));
const ROUNDS = Number(arg('--rounds', '3'));
const only = arg('--only', 'insert,update').split(',');

interface Table {
  name: string;
  /** DDL after the class table (extra indexes) or index drops. */
  setup: string[];
}

const fieldIndex = (t: string) => `CREATE INDEX ON "${t}" (((data->>'n')::numeric) NULLS FIRST, "objectId")`;
const drop = (t: string, suffix: string) => `DO $$ BEGIN EXECUTE (SELECT format('DROP INDEX %I', indexname) FROM pg_indexes WHERE schemaname = '${SCHEMA}' AND tablename = '${t}' AND indexname LIKE '%${suffix}'); END $$`;

const tables: Table[] = [
  { name: 'Full', setup: [fieldIndex('Full')] },
  { name: 'NoGin', setup: [fieldIndex('NoGin'), drop('NoGin', '_rperm')] },
  { name: 'NoUpdatedAt', setup: [fieldIndex('NoUpdatedAt'), drop('NoUpdatedAt', '_updatedAt')] },
  { name: 'NoFieldIdx', setup: [] },
  { name: 'Hot', setup: [drop('Hot', '_updatedAt')] },
];

let seq = 0;
const id = () => `o${process.pid}x${(seq++).toString(36).padStart(10, '0')}`;
const doc = (i: number) => ({
  n: i % 10000, s: `s-${i}-abcdefghijklmnop`, tags: ['t1', 't7'], score: (i * 7.3) % 1000,
  owner: { __type: 'Pointer', className: '_User', objectId: 'a'.repeat(24) }, counter: 0,
});
const ACL = { '*': { read: true, write: true } };

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${SCHEMA}${process.argv.includes("--generic") ? " -c plan_cache_mode=force_generic_plan" : ""}` });
  await c.connect();
  try {
    for (const f of SQL_FUNCTIONS) await c.query(f);
    const ids = new Map<string, string[]>();
    for (const t of tables) {
      for (const s of createClassTable(t.name)) await c.query(s.parts.join(''));
      for (const s of t.setup) await c.query(s);
      const mine: string[] = [];
      for (let i = 0; i < ROWS; i += 500) {
        const batch = Array.from({ length: Math.min(500, ROWS - i) }, (_, k) => ({ id: id(), data: doc(i + k) }));
        mine.push(...batch.map((b) => b.id));
        await c.query(
          `INSERT INTO "${t.name}" SELECT x.id, now(), now(), $2::jsonb, '{*}', '{*}', x.data FROM jsonb_to_recordset($1::jsonb) AS x(id text, data jsonb)`,
          [JSON.stringify(batch), JSON.stringify(ACL)],
        );
      }
      ids.set(t.name, mine);
      await c.query(`VACUUM ANALYZE "${t.name}"`);
    }
    const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0].pid;
    type Variant = { label: string; run: (i: number) => Promise<unknown>; writes?: number };
    const variants: Variant[] = [];
    if (only.includes('insert')) {
      for (const t of tables.filter((x) => x.name !== 'Hot')) {
        const text = `INSERT INTO "${t.name}" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES ($1, $2::timestamptz, $3::timestamptz, $4::jsonb, $5::text[], $6::text[], $7::jsonb)`;
        variants.push({
          label: `insert ${t.name}`,
          run: (i) => {
            const now = new Date().toISOString();
            return c.query({ name: `ins_${t.name}`, text, values: [id(), now, now, JSON.stringify(ACL), ['*'], ['*'], JSON.stringify(doc(i))] });
          },
        });
      }
    }
    if (only.includes('update')) {
      const upd = (t: string, ret: string) => `UPDATE "${t}" SET data = (data || jsonb_build_object('counter', to_jsonb(larder_finite(larder_num(data->'counter') + $1::numeric)))), "updatedAt" = $2::timestamptz
    WHERE "${t}"."objectId" = $3 AND wperm && $4::text[] AND TRUE RETURNING ${ret}`;
      const variant = (t: string, label: string, ret: string) => {
        const list = ids.get(t) ?? [];
        variants.push({
          label: `update ${t} ${label}`,
          run: () => c.query({ name: `upd_${t}_${label}`, text: upd(t, ret), values: [1, new Date().toISOString(), list[Math.floor(Math.random() * list.length)], ['*']] }),
        });
      };
      variant('Full', 'ret-data', `"updatedAt", data`);
      variant('Full', 'ret-field', `"updatedAt", jsonb_build_object('counter', data->'counter') AS data`);
      for (const t of ['NoGin', 'NoUpdatedAt', 'NoFieldIdx', 'Hot']) variant(t, 'ret-data', `"updatedAt", data`);
    }
    if (only.includes('rows')) {
      const list = ids.get('Full') ?? [];
      const set = `data = data || jsonb_build_object('counter', to_jsonb(larder_finite(larder_num(data->'counter') + u.a))), "updatedAt" = $3::timestamptz`;
      const texts = {
        lock: `WITH l AS (SELECT "objectId" FROM "Full" WHERE "objectId" = ANY($1::text[]) FOR UPDATE SKIP LOCKED)
    UPDATE "Full" SET ${set} FROM unnest($1::text[], $2::numeric[]) AS u(id, a) JOIN l ON l."objectId" = u.id
    WHERE "Full"."objectId" = u.id AND wperm && $4::text[] AND TRUE RETURNING "Full"."objectId", "Full"."updatedAt", "Full".data->'counter' AS value`,
        plain: `UPDATE "Full" SET ${set} FROM unnest($1::text[], $2::numeric[]) AS u(id, a)
    WHERE "Full"."objectId" = u.id AND wperm && $4::text[] AND TRUE RETURNING "Full"."objectId", "Full"."updatedAt", "Full".data->'counter' AS value`,
        // The rows locked in the CTE, found again by the locked tuple's ctid (a TID scan) rather than
        // by a second descent of the primary key.
        ctid: `WITH l AS (SELECT ctid AS tid, "objectId" FROM "Full" WHERE "objectId" = ANY($1::text[]) FOR UPDATE SKIP LOCKED)
    UPDATE "Full" SET ${set} FROM l JOIN unnest($1::text[], $2::numeric[]) AS u(id, a) ON u.id = l."objectId"
    WHERE "Full".ctid = l.tid AND wperm && $4::text[] AND TRUE RETURNING "Full"."objectId", "Full"."updatedAt", "Full".data->'counter' AS value`,
        // The rows locked in the CTE, each one's amount by its position in the ids (no join with unnest).
        lockpos: `WITH l AS (SELECT "objectId" FROM "Full" WHERE "objectId" = ANY($1::text[]) FOR UPDATE SKIP LOCKED)
    UPDATE "Full" SET ${set.replace('u.a', '($2::numeric[])[array_position($1::text[], "Full"."objectId")]')} FROM l
    WHERE "Full"."objectId" = l."objectId" AND wperm && $4::text[] AND TRUE RETURNING "Full"."objectId", "Full"."updatedAt", "Full".data->'counter' AS value`,
      };
      // `--groups 2,8,16`: the locking statement with other numbers of rows (what a larger group saves).
      const sizes = arg('--groups', '8').split(',').map(Number);
      const forms = arg('--forms', 'lock').split(',') as (keyof typeof texts)[];
      const runs = [...forms.flatMap((f) => sizes.map((k) => [f, k] as const)), ...(sizes.includes(8) && !forms.includes('plain') ? [['plain', 8] as const] : [])];
      for (const [label, k] of runs) {
        const text = texts[label];
        variants.push({
          label: `rows of ${k} ${label}`,
          writes: k,
          run: () => {
            const pick = new Set<string>();
            while (pick.size < k) pick.add(list[Math.floor(Math.random() * list.length)]);
            const sorted = [...pick].sort();
            return c.query({ name: `rows_${label}_${k}`, text, values: [sorted, sorted.map(() => 1), new Date().toISOString(), ['*']] });
          },
        });
      }
    }
    const us = new Map<string, number[]>();
    for (const v of variants) for (let i = 0; i < 200; i++) await v.run(i); // warm: prepare, cache
    for (let r = 0; r < ROUNDS; r++) {
      for (const v of r % 2 ? [...variants].reverse() : variants) {
        const before = cpuOf([backend]).get(backend) ?? 0;
        for (let i = 0; i < N; i++) await v.run(i);
        const after = cpuOf([backend]).get(backend) ?? 0;
        const list = us.get(v.label) ?? [];
        list.push(Math.round(((after - before) * 1e6) / (N * (v.writes ?? 1))));
        us.set(v.label, list);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const [label, xs] of us) console.log(`${label.padEnd(32)} median ${median(xs)} us/statement (${xs.join(', ')})`);
    const hot = await c.query(`SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = '${SCHEMA}' ORDER BY relname`);
    for (const h of hot.rows) console.log(`${h.relname}: updates ${h.n_tup_upd}, HOT ${h.n_tup_hot_upd}`);
  } finally {
    await c.end();
    await admin.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
    await admin.end();
  }
}

void main();
