/**
 * `tsx bench/random-page-cost-plans.ts --db <url> [--costs 4,1.1] [--runs 3] [--only <substring>]`
 *
 * The plans of Larder's statements at two `random_page_cost` values. Runs Larder's own use-case
 * code in this process against a database seeded by the peer bench (schema `larder`, app
 * `benchApp`) and grown by hand (docs/benchmarks.md, "random_page_cost for Larder's sessions":
 * 200,000 `Bench` rows, 10% private to their owner, indexes on n, score, s and tags), records
 * every statement each request shape sends (anonymous, a user and the master key; finds, counts,
 * includes, gets, the session lookup), then for each distinct text and each cost: prepares it on a
 * fresh connection with that cost and prints the generic plan (`plan_cache_mode =
 * force_generic_plan`) and the custom one, with EXPLAIN ANALYZE's execution time (the least of
 * `--runs`) and shared buffers touched. `prepared` says whether Larder runs the text as a named
 * statement (so after five runs its generic plan is the one that counts); otherwise the custom
 * plan is what runs. Variants marked "without the score index" read a copy of the database
 * (`<db>_noscore`) without that index (so `c` is a prepared shape, as on the peer bench's data).
 * For tuning by hand; not part of `npm run bench`.
 */
import pg from 'pg';
import type { Sql } from '../src/sql/fragment.ts';
import type { Database } from '../src/storage/database.ts';
import { isPrepared, isPreparedShape } from '../src/storage/prepared-statements.ts';
import { arg } from './cli-args.ts';

const KEYS = { appId: 'benchApp', appKey: 'benchAppKey', masterKey: 'benchMasterKey' };
const base = arg('--db', 'postgres://postgres@127.0.0.1:5432/larder_rpc_plans');
const costs = arg('--costs', '4,1.1').split(',');
const runs = Number(arg('--runs', '3'));
const only = arg('--only', '');
/** Lower end of the narrow windows of `n` (the peer bench's own data has n below 10,000). */
const x0 = Number(arg('--x', '123456'));

type Who = 'anon' | 'user' | 'master';
interface Shape {
  title: string;
  who: Who;
  run: 'find' | 'get' | 'me';
  query?: Record<string, string>;
  className?: string;
  dropScoreIndex?: boolean;
}

const w = (v: unknown) => JSON.stringify(v);
const day = (d: number) => ({ __type: 'Date', iso: new Date(Date.now() - d * 86_400_000).toISOString() });

async function shapes(admin: pg.Client): Promise<Shape[]> {
  const { rows } = await admin.query<{ id: string }>(`SELECT "objectId" AS id FROM larder."Bench" ORDER BY "objectId" LIMIT 20`);
  const ids = rows.map((r) => r.id);
  const { rows: users } = await admin.query<{ id: string; name: string }>(`SELECT "objectId" AS id, data->>'username' AS name FROM larder."_User" ORDER BY "objectId" LIMIT 1`);
  const owner = { __type: 'Pointer', className: '_User', objectId: users[0].id };
  const c = (lo: number, hi: number, extra: Record<string, string> = {}) => ({ where: w({ n: { $gte: lo, $lt: hi } }), order: '-score', limit: '20', ...extra });
  const list: Shape[] = [];
  for (const drop of [false, true]) {
    const tag = drop ? ' (without the score index)' : '';
    list.push(
      { title: `c: n in a window of 100, order=-score${tag}`, who: 'anon', run: 'find', query: c(x0, x0 + 100), dropScoreIndex: drop },
      { title: `c wide: n in [0, 190000) (95% of rows), order=-score${tag}`, who: 'anon', run: 'find', query: c(0, 190_000), dropScoreIndex: drop },
      { title: `c wider: n in [0, 200000) (all rows), order=-score${tag}`, who: 'anon', run: 'find', query: c(0, 200_000), dropScoreIndex: drop },
      { title: `h: c with include=owner${tag}`, who: 'anon', run: 'find', query: c(x0, x0 + 100, { include: 'owner' }), dropScoreIndex: drop },
      { title: `h wide: n in [0, 190000) with include=owner${tag}`, who: 'anon', run: 'find', query: c(0, 190_000, { include: 'owner' }), dropScoreIndex: drop },
    );
  }
  list.push(
    { title: 'c as a user (rperm && readers)', who: 'user', run: 'find', query: c(x0, x0 + 100) },
    { title: 'c wide as a user', who: 'user', run: 'find', query: c(0, 190_000) },
    { title: 'c as the master key', who: 'master', run: 'find', query: c(x0, x0 + 100) },
    { title: 'c wide as the master key', who: 'master', run: 'find', query: c(0, 190_000) },
    { title: 'd: tags $in [t7, t42], count=1, limit=20', who: 'anon', run: 'find', query: { where: w({ tags: { $in: ['t7', 't42'] } }), count: '1', limit: '20' } },
    { title: 'd as a user', who: 'user', run: 'find', query: { where: w({ tags: { $in: ['t7', 't42'] } }), count: '1', limit: '20' } },
    { title: 'tags equal one tag (contains), limit 100', who: 'anon', run: 'find', query: { where: w({ tags: 't7' }), limit: '100' } },
    { title: 's equal to a string, order=-score', who: 'anon', run: 'find', query: { where: w({ s: 's-777-' }), order: '-score' } },
    { title: 's $regex prefix ^s-1234', who: 'anon', run: 'find', query: { where: w({ s: { $regex: '^s-1234' } }), limit: '100' } },
    { title: 's $regex contains abc', who: 'anon', run: 'find', query: { where: w({ s: { $regex: 'abc' } }), limit: '100' } },
    { title: 'owner equal to a Pointer, order=-score', who: 'anon', run: 'find', query: { where: w({ owner }), order: '-score', limit: '100' } },
    { title: 'n $in 4 values', who: 'anon', run: 'find', query: { where: w({ n: { $in: [5, 50, 500, 5000] } }) } },
    { title: 'no condition, default order, limit 100', who: 'anon', run: 'find', query: { limit: '100' } },
    { title: 'order=-createdAt, skip=100', who: 'anon', run: 'find', query: { order: '-createdAt', skip: '100', limit: '100' } },
    { title: 'order=-updatedAt, limit 100', who: 'anon', run: 'find', query: { order: '-updatedAt', limit: '100' } },
    { title: 'createdAt > 1 day ago, order=createdAt', who: 'anon', run: 'find', query: { where: w({ createdAt: { $gt: day(1) } }), order: 'createdAt', limit: '100' } },
    { title: 'sync: updatedAt > 2 days ago, order=updatedAt, limit 1000 (master)', who: 'master', run: 'find', query: { where: w({ updatedAt: { $gt: day(2) } }), order: 'updatedAt', limit: '1000' } },
    { title: 'sync wide: updatedAt > 150 days ago, order=updatedAt, limit 1000 (master)', who: 'master', run: 'find', query: { where: w({ updatedAt: { $gt: day(150) } }), order: 'updatedAt', limit: '1000' } },
    { title: 'sync as a user: updatedAt > 2 days ago, order=updatedAt', who: 'user', run: 'find', query: { where: w({ updatedAt: { $gt: day(2) } }), order: 'updatedAt', limit: '1000' } },
    { title: 'n range, order=n, skip=40', who: 'anon', run: 'find', query: { where: w({ n: { $gte: 1000, $lt: 3000 } }), order: 'n', skip: '40', limit: '20' } },
    { title: 'n wide range, order=n, skip=40', who: 'anon', run: 'find', query: { where: w({ n: { $gte: 0, $lt: 190_000 } }), order: 'n', skip: '40', limit: '20' } },
    { title: 'n range, default order (createdAt)', who: 'anon', run: 'find', query: { where: w({ n: { $gte: 1000, $lt: 1100 } }), limit: '100' } },
    { title: 'n wide range, default order (createdAt)', who: 'anon', run: 'find', query: { where: w({ n: { $gte: 0, $lt: 190_000 } }), limit: '100' } },
    { title: 'objectId $in 20 ids (include by ids)', who: 'anon', run: 'find', query: { where: w({ objectId: { $in: ids } }), limit: '100' } },
    { title: 'count of everything (count=1, limit=0)', who: 'anon', run: 'find', query: { count: '1', limit: '0' } },
    { title: 'count n wide range', who: 'anon', run: 'find', query: { where: w({ n: { $gte: 0, $lt: 190_000 } }), count: '1', limit: '0' } },
    { title: '_User by username (master)', who: 'master', run: 'find', className: '_User', query: { where: w({ username: users[0].name }) } },
    { title: '_User by email (master)', who: 'master', run: 'find', className: '_User', query: { where: w({ email: 'nobody@example.com' }) } },
    { title: 'get by id', who: 'anon', run: 'get', query: { id: ids[3] } },
    { title: 'GET /users/me (session token lookup)', who: 'user', run: 'me' },
  );
  return list.filter((s) => !only || s.title.includes(only));
}

/** Runs one shape through Larder's use-case code, returning the statements it sent. */
async function capture(shape: Shape, sessionToken: string): Promise<Sql[]> {
  const url = dbOf(shape);
  const { makeContext } = await import('../src/http/dispatch.ts');
  const { parseFindQuery } = await import('../src/http/find-params.ts');
  const { findObjects } = await import('../src/objects/find-objects.ts');
  const { getObject } = await import('../src/objects/get-object.ts');
  const { currentUser } = await import('../src/users/get-user.ts');
  const { openApp } = await import('../src/open-app.ts');
  const { openPostgres } = await import('../src/storage/postgres.ts');
  const db = await openPostgres({ url, schema: 'larder', poolSize: 2, statementTimeoutMs: 60_000 });
  const seen: Sql[] = [];
  const record = <R>(q: (s: Sql) => Promise<R[]>) => (s: Sql) => {
    seen.push(s);
    return q(s);
  };
  const recording: Database = {
    engine: db.engine,
    schema: db.schema,
    query: <R>(s: Sql) => record<R>((x) => db.query<R>(x))(s),
    transaction: (work) => db.transaction((tx) => work({ query: <R>(s: Sql) => record<R>((x) => tx.query<R>(x))(s) })),
    exec: (t) => db.exec(t),
    ping: () => db.ping(),
    close: () => db.close(),
  };
  try {
    const { app } = await openApp({ db: recording, keys: KEYS, masterSignWindowMs: 60_000 });
    const master = shape.who === 'master';
    const caller = { credentials: { appId: KEYS.appId, key: master ? `${KEYS.masterKey},master` : KEYS.appKey }, production: true, sessionToken: shape.who === 'user' ? sessionToken : undefined };
    const ctx = makeContext(app, caller, master, 'http://127.0.0.1');
    if (shape.who === 'user') await ctx.principal();
    seen.length = 0;
    if (shape.run === 'find') await findObjects(ctx, shape.className ?? 'Bench', parseFindQuery(shape.query ?? {}));
    else if (shape.run === 'get') await getObject(ctx, 'Bench', shape.query?.id ?? '', { include: [], returnACL: false });
    else {
      const fresh = makeContext(app, caller, false, 'http://127.0.0.1');
      seen.length = 0;
      await currentUser(fresh);
    }
    return [...seen];
  } finally {
    await db.close();
  }
}

/** One plan: its scan and join lines (compact) and the least execution time of `runs`. */
interface Planned {
  nodes: string;
  ms: number;
  buffers: string;
}

function compact(plan: string[]): string {
  const nodes: string[] = [];
  for (const line of plan) {
    if (!/\(actual|\(cost/.test(line)) continue;
    const m = /(?:->\s*)?((?:Parallel )?(?:Seq Scan|Index Scan(?: Backward)?|Index Only Scan(?: Backward)?|Bitmap Heap Scan|Bitmap Index Scan|BitmapAnd|BitmapOr|Hash Join|Nested Loop|Merge Join|Sort|Incremental Sort|Limit|Aggregate|HashAggregate|Gather(?: Merge)?)(?: using ("?[\w$]+"?))?(?: on ("?[\w$]+"?))?)/.exec(line);
    if (!m || m[1].startsWith('Limit')) continue;
    const rows = /actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/.exec(line);
    const name = m[1].replace(/_lx_[0-9a-f]+_/g, '').replace(/ on "?(\w+)"?/, ' on $1');
    nodes.push(`${name}${rows ? ` (${rows[1]})` : ''}`);
  }
  return nodes.join(' > ');
}

/** A bound value as an SQL literal (EXPLAIN EXECUTE takes no protocol parameters). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (Array.isArray(v)) return literal(`{${v.map((x) => (x === null ? 'NULL' : `"${String(x).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`);
  if (v instanceof Date) return literal(v.toISOString());
  if (typeof v === 'object') return literal(JSON.stringify(v));
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** The database of a shape: the variants without the score index read a copy that lacks it. */
function dbOf(shape: Shape): string {
  return shape.dropScoreIndex ? `${base}_noscore` : base;
}

async function explainAt(url: string, cost: string, text: string, values: unknown[], mode: 'generic' | 'custom'): Promise<Planned> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=larder,public -c TimeZone=UTC -c random_page_cost=${cost}` });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL plan_cache_mode = force_${mode}_plan`);
    await client.query({ name: 'rpc_probe', text, values });
    const params = values.map(literal).join(', ');
    let best: Planned | undefined;
    for (let i = 0; i < runs; i++) {
      const res = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE rpc_probe${params ? `(${params})` : ''}`);
      const lines = res.rows.map((r) => r['QUERY PLAN']);
      const ms = Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))?.[1] ?? NaN);
      const buffers = /Buffers: (shared [^\n]*)/.exec(lines.join('\n'))?.[1] ?? '';
      if (!best || ms < best.ms) best = { nodes: compact(lines), ms, buffers };
    }
    return best as Planned;
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end();
  }
}

/**
 * `--sweep`: the prepared `c` statement (database without the score index) on its generic plan at
 * each cost, for windows of `n` from 100 rows to the whole table: median execution time of
 * `--runs`, costs interleaved, each cost on its own connection.
 */
async function sweep(): Promise<void> {
  const shape: Shape = { title: 'sweep', who: 'anon', run: 'find', query: { where: w({ n: { $gte: 1000, $lt: 1100 } }), order: '-score', limit: '20' }, dropScoreIndex: true };
  const [statement] = (await capture(shape, '')).filter((s) => /ORDER BY/.test(s.toQuery().text));
  const { text, values } = statement.toQuery();
  const lo = values.indexOf(1000);
  // `--modes generic,custom`: a column per cost and plan mode (`1.1/custom`); default generic only.
  const modes = arg('--modes', 'generic').split(',');
  // `--pg-options '-c max_parallel_workers_per_gather=0'`: more settings on every connection of the sweep.
  const extra = arg('--pg-options', '');
  const cols = costs.flatMap((c) => modes.map((m) => `${c}/${m}`));
  const clients = new Map<string, pg.Client>();
  for (const col of cols) {
    const [cost, mode] = col.split('/');
    const client = new pg.Client({ connectionString: dbOf(shape), options: `-c search_path=larder,public -c TimeZone=UTC -c random_page_cost=${cost} -c plan_cache_mode=force_${mode}_plan ${extra}` });
    await client.connect();
    await client.query({ name: 'rpc_probe', text, values });
    clients.set(col, client);
  }
  console.log(`width | ${cols.map((c) => `rpc=${c} ms (median of ${runs})`).join(' | ')} | plan of each`);
  for (const width of arg('--widths', '100,1000,5000,10000,20000,50000,100000,200000').split(",").map(Number)) {
    const times = new Map<string, number[]>(cols.map((c) => [c, []]));
    const plans = new Map<string, string>();
    for (let i = 0; i < runs; i++) {
      for (const cost of i % 2 ? [...cols].reverse() : cols) {
        const x = Math.floor(Math.random() * (200_000 - width + 1));
        const v = values.map((val, k) => (k === lo ? x : k === lo + 1 ? x + width : val));
        const res = await (clients.get(cost) as pg.Client).query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE rpc_probe(${v.map(literal).join(', ')})`);
        const lines = res.rows.map((r) => r['QUERY PLAN']);
        (times.get(cost) as number[]).push(Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))?.[1]));
        plans.set(cost, `${compact(lines).replace(/^Sort \(\d+\) > /, '')} [${/Buffers: (shared [^\n]*)/.exec(lines.join('\n'))?.[1] ?? ''}]`);
      }
    }
    const med = (a: number[]) => [...a].sort((p, q) => p - q)[Math.floor(a.length / 2)];
    console.log(`${width} | ${cols.map((c) => med(times.get(c) as number[]).toFixed(2)).join(' | ')} | ${cols.map((c) => plans.get(c)).join(' | ')}`);
  }
  for (const c of clients.values()) await c.end();
}

async function main(): Promise<void> {
  if (process.argv.includes('--sweep')) return sweep();
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const { rows } = await admin.query<{ t: string }>(`SELECT data->>'sessionToken' AS t FROM larder."_User" ORDER BY "objectId" LIMIT 1`);
  const list = await shapes(admin);
  await admin.end();
  for (const shape of list) {
    let statements: Sql[];
    try {
      statements = await capture(shape, rows[0].t);
    } catch (err) {
      console.log(`\n## ${shape.title}: could not capture (${(err as Error).message})`);
      continue;
    }
    const seen = new Set<string>();
    for (const s of statements) {
      const { text, values } = s.toQuery();
      if (seen.has(text) || /^\s*(BEGIN|COMMIT|SET|SHOW)/i.test(text) || /_larder_classes|pg_indexes|pg_stats|pg_class/.test(text)) continue;
      seen.add(text);
      const prep = isPreparedShape(s) ? 'prepared (shape)' : isPrepared(s) ? 'prepared' : 'unprepared';
      console.log(`\n## ${shape.title} [${shape.who}; ${prep}]\n   ${text.replace(/\s+/g, ' ').slice(0, 400)}`);
      for (const mode of ['generic', 'custom'] as const) {
        for (const cost of costs) {
          try {
            const p = await explainAt(dbOf(shape), cost, text, values, mode);
            console.log(`   ${mode.padEnd(7)} rpc=${cost.padEnd(3)} ${p.ms.toFixed(2).padStart(9)} ms  ${p.nodes}  [${p.buffers}]`);
          } catch (err) {
            console.log(`   ${mode} rpc=${cost}: ${(err as Error).message}`);
          }
        }
      }
    }
  }
}

await main();
