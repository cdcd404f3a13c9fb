/**
 * `tsx bench/peer-ab.ts --root <baseline checkout> (--template <database> | --pglite <data dir>)
 *   [--only b,c,h,d,e2,a] [--rounds 6] [--duration 5] [--workers 1] [--connections 32] [--prof <dir>] [--interleave]
 *   [--env-a K=V,K=V] [--env-b K=V,K=V] [--db-set-a k=v,k=v] [--db-set-b k=v,k=v]
 *   [--simultaneous]`
 *
 * A/B of the peer bench's read queries (../shared/peer-bench: b = get by id, c = `n` in a window of
 * 100, `order=-score`, limit 20; h = the same with `include=owner`, a Pointer to _User; d = `tags`
 * `$in` two random tags, `count=1`, limit 20) and of its
 * writes e2 (`PUT /1.1/classes/Bench/<random id>` with `{"counter":{"__op":"Increment","amount":1}}`
 * over all 10,000 objects) and a (a create in BenchW, the peer bench's body) between a
 * baseline checkout (A) and this one (B), on two copies of one database the peer bench seeded
 * (`--template`: a Larder database seeded by `bench.js --target targets/leancloud.js`, schema
 * `larder`, app `benchApp`). Before measuring, it asks both servers the same queries (c, h and
 * variations of order, keys and limits) and requires JSON-equal answers (same keys in the same
 * order, same values; whitespace and number text may differ), and the same increments' answers
 * (`updatedAt` aside: byte-identical). Then it alternates
 * timed runs between A and B and prints CPU time per request of each server's processes and of
 * its PostgreSQL backends (from /proc/<pid>/stat), which moves much less than req/s on a shared
 * machine. `--interleave` runs every workload in every round (rounds outer), so that an unchanged
 * workload is a control measured at the same times as the changed one; by default each workload
 * runs all its rounds in turn. `--simultaneous` loads A and B at the same time in each round (each
 * with its own connections), so that both meet the same load from the rest of the machine. `--prof <dir>` CPU-profiles B (node --cpu-prof) and prints its hottest functions.
 * `--pglite <data dir>` instead of `--template`: the embedded engine, on two copies of a PGlite data
 * directory a Larder server of either build seeded with the peer bench (bench.js against it, then
 * the index on `n` through the admin endpoint, server stopped); the CPU is the server process's,
 * which runs the database too (the pg column stays 0).
 * `--env-a`/`--env-b` add server settings to one side (one checkout against itself: `--root .`);
 * `--db-set-a`/`--db-set-b` PostgreSQL settings of one side's database copy (ALTER DATABASE SET).
 * Each round also prints the database's commits per request (statements, for the writes).
 * For tuning by hand; not part of `npm run bench`.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { arg, envArg } from './cli-args.ts';
import { backendPids, cpuOf, cpuUsed } from './process-cpu.ts';
import { topFunctions } from './profile-summary.ts';
import { startServer, type ServerProcess } from './server-process.ts';

const KEYS = { LARDER_APP_ID: 'benchApp', LARDER_APP_KEY: 'benchAppKey', LARDER_MASTER_KEY: 'benchMasterKey' };
const HEADERS = { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': KEYS.LARDER_APP_KEY };
const N_RANGE = 10_000;
const WIDTH = 100;

function rangePath(x: number, extra: string): string {
  const where = encodeURIComponent(JSON.stringify({ n: { $gte: x, $lt: x + WIDTH } }));
  return `/1.1/classes/Bench?where=${where}&order=-score&limit=20${extra}`;
}

/** The range workloads by letter (the extra query parameters); `b` is get by id, `d` the count, e2 and a writes (see pathOf). */
const WORK: Record<string, string> = { b: '', c: '', h: '&include=owner', d: '', e2: '', a: '' };

/** d: the peer bench's count (`tags` `$in` two random tags of its 50, `count=1`, limit 20). */
function countPath(): string {
  const a = Math.floor(Math.random() * 50);
  const b = (a + 1 + Math.floor(Math.random() * 49)) % 50;
  return `/1.1/classes/Bench?where=${encodeURIComponent(JSON.stringify({ tags: { $in: [`t${a}`, `t${b}`] } }))}&count=1&limit=20`;
}

/** Ids of Bench objects for `b` and `e2` (all of them), and of users for `a`'s owners, read once from side A's database. */
let benchIds: string[] = [];
let userIds: string[] = [];

/** The path of one request of a workload: a random window of `n`, or a random object for `b` and `e2`. */
function pathOf(key: string, extra: string): string {
  if (key === 'b' || key === 'e2') return `/1.1/classes/Bench/${benchIds[Math.floor(Math.random() * benchIds.length)]}`;
  if (key === 'a') return '/1.1/classes/BenchW';
  if (key === 'd') return countPath();
  return rangePath(Math.floor(Math.random() * (N_RANGE - WIDTH + 1)), extra);
}

const INCREMENT = JSON.stringify({ counter: { __op: 'Increment', amount: 1 } });
let created = 0;

/** The method and body of one request of a workload (the peer bench's bodies: lib/workloads.js). */
function requestOf(key: string): { method: 'GET' | 'PUT' | 'POST'; body?: string } {
  if (key === 'e2') return { method: 'PUT', body: INCREMENT };
  if (key === 'a') {
    created++;
    const tags = ['t' + (created % 50), 't' + ((created * 7 + 3) % 50)];
    return {
      method: 'POST',
      body: JSON.stringify({ n: Math.floor(Math.random() * N_RANGE), s: `w-${created}-${Math.random().toString(36).slice(2, 18)}`, tags, score: Math.round(Math.random() * 1000 * 1e6) / 1e6, counter: 0, owner: { __type: 'Pointer', className: '_User', objectId: userIds[created % userIds.length] } }),
    };
  }
  return { method: 'GET' };
}

/** Increments whose answers must be the same on both sides but for `updatedAt` (sent to both, in order). */
function checkWrites(): { path: string; body: string }[] {
  const id = (k: number) => benchIds[k % benchIds.length];
  const inc = (field: string, amount: unknown) => JSON.stringify({ [field]: { __op: 'Increment', amount } });
  return [
    { path: `/1.1/classes/Bench/${id(1)}`, body: INCREMENT },
    { path: `/1.1/classes/Bench/${id(2)}?fetchWhenSave=true`, body: INCREMENT },
    { path: `/1.1/classes/Bench/${id(3)}?fetchWhenSave=true`, body: inc('counter', 2.5) },
    { path: `/1.1/classes/Bench/${id(3)}`, body: inc('counter', -7) },
    { path: `/1.1/classes/Bench/${id(4)}?fetchWhenSave=true`, body: inc('n', 1) },
    { path: `/1.1/classes/Bench/${id(5)}`, body: inc('s', 1) },
    { path: `/1.1/classes/Bench/${id(6)}`, body: inc('counter', 'x') },
    { path: '/1.1/classes/Bench/000000000000000000000000', body: INCREMENT },
    { path: `/1.1/classes/Bench/${id(7)}?fetchWhenSave=true`, body: inc('fresh', 1) },
  ];
}

/** Queries whose answers must be byte-identical on both sides (the measured ones and neighbours). */
function checkPaths(): string[] {
  const out: string[] = [];
  const where = (w: unknown) => encodeURIComponent(JSON.stringify(w));
  for (const x of [0, 17, 1234, 4321, 9950, 9999]) {
    out.push(rangePath(x, ''), rangePath(x, '&include=owner'));
    out.push(`/1.1/classes/Bench?where=${where({ n: { $gte: x, $lt: x + WIDTH } })}&order=score,-n&limit=7&skip=3`);
    out.push(`/1.1/classes/Bench?where=${where({ n: { $gte: x, $lt: x + WIDTH } })}&order=-score&limit=20&keys=score,owner&include=owner`);
    out.push(`/1.1/classes/Bench?where=${where({ n: { $gte: x, $lt: x + WIDTH } })}&order=-score&limit=20&count=1`);
  }
  out.push('/1.1/classes/Bench?order=-score&limit=1000');
  out.push('/1.1/classes/Bench?order=score&limit=1000&include=owner');
  out.push('/1.1/classes/Bench?order=-counter,-score&limit=50');
  out.push(`/1.1/classes/Bench?where=${where({ tags: { $in: ['t7', 't42'] } })}&count=1&limit=20`);
  return out;
}

interface Side {
  label: string;
  db: string;
  server: ServerProcess;
  /** The PostgreSQL database's pool (its backends' CPU); none on PGlite. */
  pool?: pg.Pool;
  ok: Map<string, number>;
  secs: Map<string, number>;
  larder: Map<string, number>;
  pg: Map<string, number>;
}

async function admin<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

async function load(url: string, key: string, extra: string, secs: number, connections: number): Promise<{ ok: number; secs: number; non2xx: number; p50: number; p99: number }> {
  const r = await autocannon({
    url,
    connections,
    duration: secs,
    requests: [{ method: 'GET', headers: { ...HEADERS, 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, ...requestOf(key), path: pathOf(key, extra) }) }],
  });
  return { ok: r['2xx'], secs: r.duration, non2xx: r.non2xx, p50: r.latency.p50, p99: r.latency.p99 };
}

async function main(): Promise<void> {
  const root = arg('--root', '');
  const template = arg('--template', '');
  const pgliteDir = arg('--pglite', '');
  if (!root || (!template && !pgliteDir)) throw new Error('--root <baseline checkout> and --template <database> or --pglite <data dir> are required');
  const only = arg('--only', 'c,h').split(',');
  const rounds = Number(arg('--rounds', '6'));
  const interleave = process.argv.includes('--interleave');
  const simultaneous = process.argv.includes('--simultaneous');
  const secs = Number(arg('--duration', '5'));
  const workers = Number(arg('--workers', '1'));
  const connections = Number(arg('--connections', '32'));
  const profDir = arg('--prof', '');
  const base = arg('--url', 'postgres://postgres@127.0.0.1:5432/');
  const sides: Side[] = [];
  try {
    for (const [label, r] of [['A', root], ['B', undefined]] as const) {
      // The copies are named after this checkout too: two checkouts measuring from one template at
      // once would otherwise drop each other's copies (DROP DATABASE fails while the other runs).
      const db = pgliteDir ? `${pgliteDir}-${label.toLowerCase()}` : `${template}_${basename(process.cwd())}_${label.toLowerCase()}`.slice(-63);
      if (pgliteDir) {
        rmSync(db, { recursive: true, force: true });
        cpSync(pgliteDir, db, { recursive: true });
      } else {
        await admin(base + 'postgres', async (c) => {
          await c.query(`DROP DATABASE IF EXISTS "${db}"`);
          await c.query(`CREATE DATABASE "${db}" TEMPLATE "${template}"`);
          // `--db-set-b random_page_cost=1.1`: a setting of B's copy for every session on it
          // (ALTER DATABASE ... SET), for measuring a planner setting without a build of its own.
          const set = arg(label === 'A' ? '--db-set-a' : '--db-set-b', '');
          for (const kv of set ? set.split(',') : []) {
            const [k, v] = kv.split('=');
            if (!/^[a-z_]+$/.test(k) || !/^[\w.]+$/.test(v)) throw new Error(`bad setting ${kv}`);
            await c.query(`ALTER DATABASE "${db}" SET ${k} = '${v}'`);
          }
        });
      }
      if (profDir && label === 'B') mkdirSync(profDir, { recursive: true });
      const nodeArgs = profDir && label === 'B' ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
      const storage = pgliteDir ? { kind: 'pglite' as const, dataDir: db } : { kind: 'postgres' as const, url: base + db, schema: 'larder' };
      const server = await startServer(storage, workers, { root: r, env: { ...KEYS, ...envArg(label === 'A' ? '--env-a' : '--env-b') }, nodeArgs });
      const pool = pgliteDir ? undefined : new pg.Pool({ connectionString: base + db, max: 1 });
      sides.push({ label, db, server, pool, ok: new Map(), secs: new Map(), larder: new Map(), pg: new Map() });
    }
    if (sides[0].pool) {
      benchIds = (await sides[0].pool.query<{ objectId: string }>('SELECT "objectId" FROM larder."Bench" ORDER BY "objectId"')).rows.map((r) => r.objectId);
      userIds = (await sides[0].pool.query<{ objectId: string }>('SELECT "objectId" FROM larder."_User" ORDER BY "objectId" LIMIT 1000')).rows.map((r) => r.objectId);
    }
    let differ = 0;
    let bytes = 0;
    const paths = checkPaths();
    for (const p of paths) {
      const [a, b] = await Promise.all(sides.map(async (s) => {
        const res = await fetch(s.server.url + p, { headers: HEADERS });
        return { head: `${res.status} ${res.headers.get('content-type')}`, text: await res.text() };
      }));
      if (a.head === b.head && a.text === b.text) bytes++;
      // Answers spliced from jsonb text differ from JSON.stringify's in whitespace and number text
      // only: the check is on the parsed answers, keys in order (JSON.stringify of each).
      if (a.head !== b.head || JSON.stringify(JSON.parse(a.text)) !== JSON.stringify(JSON.parse(b.text))) {
        differ++;
        console.log(`DIFFERENT ANSWER for ${decodeURIComponent(p)}\nA: ${a.head} ${a.text.slice(0, 400)}\nB: ${b.head} ${b.text.slice(0, 400)}`);
      }
    }
    console.log(`${paths.length - differ} of ${paths.length} check queries answered JSON-equal (${bytes} byte-identical)`);
    const readsDiffer = differ;
    differ = 0;
    // After the reads: the increments change `counter` and `updatedAt`, which some of them show.
    const writes = benchIds.length ? checkWrites() : [];
    for (const w of writes) {
      const [a, b] = await Promise.all(sides.map(async (s) => {
        const res = await fetch(s.server.url + w.path, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/json' }, body: w.body });
        const text = (await res.text()).replace(/"updatedAt":"[^"]*"/, '"updatedAt":"-"');
        return { head: `${res.status} ${res.headers.get('content-type')}`, text };
      }));
      if (a.head !== b.head || a.text !== b.text) {
        differ++;
        console.log(`DIFFERENT ANSWER for PUT ${w.path} ${w.body}\nA: ${a.head} ${a.text.slice(0, 400)}\nB: ${b.head} ${b.text.slice(0, 400)}`);
      }
    }
    // 64 at once to distinct objects, and 16 at once to one: the grouped statements' answers (combine-increments.ts).
    if (benchIds.length) {
      const burst = [...Array.from({ length: 64 }, (_, i) => ({ path: `/1.1/classes/Bench/${benchIds[100 + i]}?fetchWhenSave=true`, body: INCREMENT })),
        ...Array.from({ length: 16 }, () => ({ path: `/1.1/classes/Bench/${benchIds[99]}`, body: INCREMENT }))];
      const answers = await Promise.all(sides.map((s) => Promise.all(burst.map(async (w) => {
        const res = await fetch(s.server.url + w.path, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/json' }, body: w.body });
        return `${res.status} ${(await res.text()).replace(/"updatedAt":"[^"]*"/, '"updatedAt":"-"')}`;
      }))));
      // The hot object's answers are its counter after each one's turn: the same set on both sides.
      const [a, b] = answers.map((x) => [...x.slice(0, 64), ...x.slice(64).sort()].join('\n'));
      writes.push(...burst);
      if (a !== b) {
        differ++;
        console.log(`DIFFERENT ANSWERS to concurrent increments\nA: ${a.slice(0, 800)}\nB: ${b.slice(0, 800)}`);
      }
    }
    if (writes.length) console.log(`${writes.length - differ} of ${writes.length} check increments answered byte-identically (updatedAt aside)`);
    if (differ || readsDiffer) process.exitCode = 1;
    for (const key of only) {
      if (WORK[key] === undefined) throw new Error(`no workload ${key}`);
      if ((key === 'b' || key === 'e2') && !benchIds.length) {
        const res = await fetch(`${sides[0].server.url}/1.1/classes/Bench?limit=1000&keys=n`, { headers: HEADERS });
        benchIds = ((await res.json()) as { results: { objectId: string }[] }).results.map((o) => o.objectId);
      }
    }
    const round = async (key: string, i: number) => {
      const extra = WORK[key];
      const one = async (s: Side) => {
        const serverPids = [s.server.pid, ...s.server.workerPids()];
        const pg0 = s.pool ? await backendPids(s.pool) : [];
        // Commits of the database in the round (PostgreSQL publishes a backend's counts within a second).
        const commits = async () => (s.pool ? Number((await s.pool.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n) : 0);
        const c0 = await commits();
        const before = cpuOf([...serverPids, ...pg0]);
        const res = await load(s.server.url, key, extra, secs, connections);
        // The pool may have opened connections during the run (idle ones close between rounds):
        // a backend that is new since the start counts from 0.
        const pgPids = [...new Set([...pg0, ...(s.pool ? await backendPids(s.pool) : [])])];
        const after = cpuOf([...serverPids, ...pgPids]);
        for (const pid of pgPids) if (!before.has(pid)) before.set(pid, 0);
        const add = (m: Map<string, number>, v: number) => m.set(key, (m.get(key) ?? 0) + v);
        add(s.ok, res.ok);
        add(s.secs, res.secs);
        add(s.larder, cpuUsed(before, after, serverPids));
        add(s.pg, cpuUsed(before, after, pgPids));
        if (res.non2xx) console.log(`${s.label} ${key}: ${res.non2xx} non-2xx answers`);
        await new Promise((r) => setTimeout(r, 1100));
        const perCommit = s.pool ? ` commits ${((await commits()) - c0 - 2) / Math.max(1, res.ok)}`.slice(0, 17) + ' per request' : '';
        console.log(`  round ${i + 1} ${s.label} ${key}: ${Math.round(res.ok / res.secs)}/s larder ${Math.round((cpuUsed(before, after, serverPids) * 1e6) / Math.max(1, res.ok))} us pg ${Math.round((cpuUsed(before, after, pgPids) * 1e6) / Math.max(1, res.ok))} us${perCommit}, p50 ${res.p50} ms, p99 ${res.p99} ms`);
      };
      // --simultaneous: both sides loaded at once, so both meet the machine's load of the moment.
      if (simultaneous) await Promise.all(sides.map(one));
      else for (const s of i % 2 ? [...sides].reverse() : sides) await one(s);
    };
    const summary = (key: string) => {
      const per = (s: Side, m: Map<string, number>) => Math.round(((m.get(key) ?? 0) * 1e6) / Math.max(1, s.ok.get(key) ?? 0));
      const line = sides.map((s) => `${s.label} ${Math.round((s.ok.get(key) ?? 0) / (s.secs.get(key) ?? 1))}/s larder ${per(s, s.larder)} us pg ${per(s, s.pg)} us`);
      const [a, b] = sides;
      console.log(`${key}: ${line.join(' | ')} | B/A larder ${(per(b, b.larder) / per(a, a.larder)).toFixed(2)} total ${((per(b, b.larder) + per(b, b.pg)) / (per(a, a.larder) + per(a, a.pg))).toFixed(2)}`);
    };
    if (interleave) {
      // Every round runs each workload on both sides: a workload whose path did not change is a
      // control measured at the same times as the changed one.
      for (const key of only) for (const s of sides) await load(s.server.url, key, WORK[key], 2, connections);
      for (let i = 0; i < rounds; i++) for (const key of only) await round(key, i);
      for (const key of only) summary(key);
    } else {
      for (const key of only) {
        for (const s of sides) await load(s.server.url, key, WORK[key], 2, connections);
        for (let i = 0; i < rounds; i++) await round(key, i);
        summary(key);
      }
    }
  } finally {
    for (const s of sides) {
      await s.server.stop();
      await s.pool?.end();
    }
    if (pgliteDir) for (const s of sides) rmSync(s.db, { recursive: true, force: true });
    else {
      await admin(base + 'postgres', async (c) => {
        for (const s of sides) await c.query(`DROP DATABASE IF EXISTS "${s.db}"`);
      });
    }
  }
  if (profDir) console.log(`profiles in ${profDir}\n${topFunctions(profDir, 45).join('\n')}`);
}

void main();
