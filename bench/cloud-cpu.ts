/**
 * `tsx bench/cloud-cpu.ts [--root <baseline checkout>] [--calls 20000] [--rounds 3] [--workers 1] [--prof] [--through-only] [--limits] [--creates] [--floor] [--forwarder <script.mjs>]... [--together [--seconds <n>]] [--one-engine]`
 *
 * CPU cost of a forwarded cloud function call (`POST /1.1/functions/hello`, bench/cloud.ts):
 * CPU time used by Larder's processes, by the LeanEngine app they supervise and by this process
 * (the load generator), divided by the calls, for the same fixed number of calls through Larder
 * and on the engine directly. With --root, a server of that checkout runs next to this one and
 * the runs alternate between them (A/B on a busy machine, where CPU per call moves much less
 * than throughput). Also counts the TCP connections Larder holds to its engine after each run
 * (socket reuse). --limits turns the per-client rate limits on (the default of a real server;
 * set too high to refuse the load generator) on both sides. --creates measures creates instead
 * (bench/cloud.ts's other comparison): in a class without hooks, and in Counter, whose no-op
 * beforeSave the engine answers (Larder's CPU per create covers the hook call), and then also
 * counts the CPU of the bench database's PostgreSQL backends (a postgres column). Without --prof,
 * BENCH_SERVER_NODE_ARGS reaches this checkout's server (e.g. --perf-basic-prof for perf). --floor
 * also forwards the call through bench/forward-floor.mjs (Node's HTTP server and a raw socket,
 * nothing else) to this side's engine, in the same rounds: the least CPU a forwarder in Node
 * spends, under the same load as Larder (its column is labelled larder). --forwarder <script> (may
 * be given more than once) does the same with another forwarder started as `node <script> <port>
 * <engine URL>` that prints a line once it listens (a variant of the floor or a stripped Larder,
 * for bisecting where a forwarder's CPU goes); its rows are labelled by the script's name. For tuning by hand; not
 * part of `npm run bench`. --together (with --root, --floor or --forwarder) calls both sides' functions at the same time,
 * `--connections` each, instead of one after the other: on a machine whose load swings from run to
 * run, both sides then share the same minutes, and the pairs compare like with like (with --creates:
 * hooked creates, Larder's and the engine's CPU only).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName } from './bench-database.ts';
import { runHttpLoad, type HttpRequestSpec } from './http-load.ts';
import pg from 'pg';
import { backendPids, cpuOf, cpuUsed } from './process-cpu.ts';
import { topFunctions } from './profile-summary.ts';
import { BENCH_KEYS, COUNTING_LIMITS, freePort, REPO_ROOT, startServer, type ServerProcess } from './server-process.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

interface Side {
  name: string;
  server: ServerProcess;
  engineUrl: string;
  enginePort: number;
  /** bench/forward-floor.mjs in front of this side's engine (--floor). */
  floor?: Forwarder;
  /** --forwarder scripts in front of this side's engine. */
  forwarders: Forwarder[];
}

interface Forwarder {
  label: string;
  url: string;
  pid: number;
  stop: () => void;
}

/** The values of a flag given more than once. */
function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === name && process.argv[i + 1] ? [process.argv[i + 1]] : []));
}

/** Starts a forwarder script (bench/forward-floor.mjs, --forwarder) for an engine and waits until it listens. */
async function startForwarder(script: string, label: string, engineUrl: string): Promise<Forwarder> {
  const port = await freePort();
  const child = spawn(process.execPath, [script, String(port), engineUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the forwarder ${script} exited (${code})`)));
  });
  return { label, url: `http://127.0.0.1:${port}`, pid: child.pid as number, stop: () => child.kill() };
}

/** The process listening on a loopback port (the engine app, below npm and sh). */
function listenerPid(port: number): number {
  const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(out);
  if (!m) throw new Error(`nothing listens on ${port}`);
  return Number(m[1]);
}

/** Established connections to the engine's port (one line per socket, seen from the client side). */
function engineConnections(port: number): number {
  const out = execFileSync('ss', ['-Htn', 'state', 'established', `dport = :${port}`], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.trim()).length;
}

async function waitForHooks(url: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/1.1/larder/engine`, { headers: { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': `${BENCH_KEYS.masterKey},master` } });
      const body = (await res.json()) as { hooks?: string[] };
      if (body.hooks?.length) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the engine hook list was not read in time');
}

/** Starts a Larder of a checkout with its own supervised engine app, or calling `shared`'s engine. */
async function startSide(name: string, root: string, schema: string, workers: number, nodeArgs: string[] | undefined, shared?: Side): Promise<Side> {
  const enginePort = shared?.enginePort ?? (await freePort());
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  const engineDir: Record<string, string> = shared ? {} : { LARDER_ENGINE_DIR: join(root, 'test', 'fixtures', 'engine-app') };
  const server = await startServer({ kind: 'postgres', url: benchDatabaseUrl(), schema }, workers, {
    root,
    nodeArgs,
    env: { ...engineDir, LARDER_ENGINE_URL: engineUrl, LARDER_ENGINE_REFRESH_SECONDS: '0', ...(process.argv.includes('--limits') ? COUNTING_LIMITS : {}) },
  });
  await waitForHooks(server.url);
  return { name, server, engineUrl, enginePort, forwarders: [] };
}

const fn: HttpRequestSpec = { method: 'POST', path: () => '/1.1/functions/hello', body: () => '{"name":"bench"}' };
let n = 0;
const create = (className: string): HttpRequestSpec => ({ method: 'POST', path: () => `/1.1/classes/${className}`, body: () => `{"n":${n++}}` });

/** Larder's, the engine's and (creates) PostgreSQL's CPU microseconds per call of each measured run, per side and target. */
const samples = new Map<string, { larder: number[]; engine: number[]; pg: number[] }>();

/**
 * --creates: the client backends of the bench database, whose CPU is counted with Larder's (a
 * create's statements). Both sides share the database, but the rounds alternate, so the other
 * side's backends sit idle while one side is measured.
 */
let stats: pg.Client | undefined;
async function pgBackends(): Promise<number[]> {
  if (!process.argv.includes('--creates')) return [];
  if (!stats) {
    stats = new pg.Client({ connectionString: benchDatabaseUrl() });
    await stats.connect();
  }
  return backendPids(stats);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
}

async function round(side: Side, calls: number, connections: number): Promise<void> {
  const larderPids = [side.server.pid, ...side.server.workerPids()].filter((p, i, a) => a.indexOf(p) === i);
  const engine = listenerPid(side.enginePort);
  const us = (s: number, n: number) => String(Math.round((s * 1e6) / (n || 1))).padStart(4);
  const creates = process.argv.includes('--creates');
  const targets: (readonly [string, string, HttpRequestSpec, number[]])[] = creates
    ? [['no hook', side.server.url, create('BenchNoHooks'), larderPids], ['hooked ', side.server.url, create('Counter'), larderPids]]
    : [['direct ', side.engineUrl, fn, larderPids], ['through', side.server.url, fn, larderPids]];
  // A forwarder's CPU is in the larder column of its rows.
  for (const f of [...(side.floor ? [side.floor] : []), ...side.forwarders]) targets.push([f.label, f.url, fn, [f.pid]]);
  for (const [label, url, spec, larder] of process.argv.includes('--through-only') ? targets.slice(1) : targets) {
    await runHttpLoad(url, spec, { amount: Math.min(2000, calls) }, connections);
    const pgPids = await pgBackends();
    const all = [...larder, engine, process.pid, ...pgPids];
    const before = cpuOf(all);
    const t0 = process.hrtime.bigint();
    const res = await runHttpLoad(url, spec, { amount: calls }, connections);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const after = cpuOf(all);
    const n = res.ok;
    const key = `${side.name.padEnd(8)} ${label}`;
    const got = samples.get(key) ?? { larder: [], engine: [], pg: [] };
    got.larder.push((cpuUsed(before, after, larder) * 1e6) / (n || 1));
    got.engine.push((cpuUsed(before, after, [engine]) * 1e6) / (n || 1));
    got.pg.push((cpuUsed(before, after, pgPids) * 1e6) / (n || 1));
    samples.set(key, got);
    const pgText = pgPids.length ? `  postgres ${us(cpuUsed(before, after, pgPids), n)}` : '';
    console.log(
      `${side.name.padEnd(8)} ${label} ${String(Math.round(n / secs)).padStart(6)}/s  CPU us/call: larder ${us(cpuUsed(before, after, larder), n)}  engine ${us(cpuUsed(before, after, [engine]), n)}${pgText}  load-gen ${us(cpuUsed(before, after, [process.pid]), n)}  non-2xx ${res.non2xx} errors ${res.errors}  engine sockets ${engineConnections(side.enginePort)}`,
    );
  }
}

/**
 * --together: both sides' through calls (with --creates, hooked creates) at once, and with --floor
 * or --forwarder the forwarders' calls too (to this checkout's engine); each target's CPU per
 * call (Larder's or the forwarder's, and its engine's). An engine's CPU is divided by the calls of
 * every target that shares it. PostgreSQL's backends serve both sides at once, so they are
 * not counted. --seconds <n> runs every target for the same n seconds (the same minutes for all,
 * also at the end) instead of --calls each. --one-engine has the baseline's Larder call this
 * checkout's engine app instead of supervising its own: with --together, every target's calls then
 * meet the same engine at the same time.
 */
async function together(sides: Side[], calls: number, connections: number): Promise<void> {
  const spec = process.argv.includes('--creates') ? create('Counter') : fn;
  const seconds = Number(arg('--seconds', '0'));
  const runs = sides.map((side) => ({ label: side.name, url: side.server.url, larder: [side.server.pid, ...side.server.workerPids()].filter((p, i, a) => a.indexOf(p) === i), engine: listenerPid(side.enginePort) }));
  // Forwarders pass function calls to an engine: they have no creates to measure.
  for (const [i, side] of process.argv.includes('--creates') ? [] : sides.entries()) {
    for (const f of [...(side.floor ? [side.floor] : []), ...side.forwarders]) runs.push({ label: f.label.trim(), url: f.url, larder: [f.pid], engine: runs[i].engine });
  }
  await Promise.all(runs.map((r) => runHttpLoad(r.url, spec, { amount: Math.min(2000, calls) }, connections)));
  const engines = [...new Set(runs.map((r) => r.engine))];
  const before = cpuOf([...runs.flatMap((r) => r.larder), ...engines]);
  const done = await Promise.all(
    runs.map(async (r) => {
      const res = await runHttpLoad(r.url, spec, seconds > 0 ? { durationSec: seconds } : { amount: calls }, connections);
      return { r, n: res.ok, errors: res.errors + res.non2xx, after: cpuOf([...r.larder, r.engine]) };
    }),
  );
  const perEngine = new Map<number, number>();
  for (const { r, n } of done) perEngine.set(r.engine, (perEngine.get(r.engine) ?? 0) + n);
  const line: string[] = [];
  for (const { r, n, errors, after } of done) {
    const key = `${r.label.padEnd(8)} together`;
    const got = samples.get(key) ?? { larder: [], engine: [], pg: [] };
    got.larder.push((cpuUsed(before, after, r.larder) * 1e6) / (n || 1));
    got.engine.push((cpuUsed(before, after, [r.engine]) * 1e6) / (perEngine.get(r.engine) || 1));
    samples.set(key, got);
    line.push(`${r.label} ${n} calls larder ${Math.round(got.larder.at(-1) ?? 0)} us/call engine ${Math.round(got.engine.at(-1) ?? 0)} (failed ${errors})`);
  }
  console.log(line.join('   '));
}

async function main(): Promise<void> {
  const calls = Number(arg('--calls', '20000'));
  const rounds = Number(arg('--rounds', '3'));
  const workers = Number(arg('--workers', '1'));
  const connections = Number(arg('--connections', '32'));
  const prof = process.argv.includes('--prof');
  const baseRoot = process.argv.includes('--root') ? arg('--root', '') : undefined;
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const dir = mkdtempSync(join(tmpdir(), 'larder-cloud-prof-'));
  const nodeArgs = prof ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : undefined;
  const schemas = [freshSchemaName() + '_b', freshSchemaName() + '_a'];
  const sides: Side[] = [];
  try {
    sides.push(await startSide('this', REPO_ROOT, schemas[0], workers, nodeArgs));
    if (baseRoot) sides.push(await startSide('baseline', baseRoot, schemas[1], workers, [], process.argv.includes('--one-engine') ? sides[0] : undefined));
    if (process.argv.includes('--floor')) sides[0].floor = await startForwarder(join(REPO_ROOT, 'bench', 'forward-floor.mjs'), 'floor  ', sides[0].engineUrl);
    for (const script of args('--forwarder')) sides[0].forwarders.push(await startForwarder(script, basename(script).replace(/\.m?js$/, '').padEnd(7), sides[0].engineUrl));
    if (process.argv.includes('--together')) for (let r = 0; r < rounds; r++) await together(r % 2 ? [...sides].reverse() : sides, calls, connections);
    else for (let r = 0; r < rounds; r++) for (const s of r % 2 ? [...sides].reverse() : sides) await round(s, calls, connections);
    for (const [key, v] of samples) {
      console.log(`${key} median CPU us/call over ${v.larder.length} runs: larder ${Math.round(median(v.larder))} (min ${Math.round(Math.min(...v.larder))}), engine ${Math.round(median(v.engine))} (min ${Math.round(Math.min(...v.engine))})${v.pg.length ? `, postgres ${Math.round(median(v.pg))} (min ${Math.round(Math.min(...v.pg))})` : ''}`);
    }
  } finally {
    for (const s of sides) {
      s.floor?.stop();
      for (const f of s.forwarders) f.stop();
      await s.server.stop();
    }
    for (const s of schemas) await dropSchema(url, s).catch(() => undefined);
    await stats?.end();
  }
  if (prof) console.log(`profiles in ${dir}\n${topFunctions(dir, 40).join('\n')}`);
}

void main();
