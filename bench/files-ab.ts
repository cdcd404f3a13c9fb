/**
 * `tsx bench/files-ab.ts --a <checkout> [--b <checkout>] [--mode get|put|big] [--rounds 6] [--n 100]
 * [--size bytes] [--width 1]`: the file service of two checkouts side by side, each one Larder
 * process (PGlite, local disk) as a child, fed by this process over loopback, a and b
 * alternating per round (the order swapped every round). Per round and server: the server's CPU
 * per operation (all its threads, and its main thread alone, from /proc) and the client's wall
 * median. On a loaded machine wall time swings between rounds; CPU per operation moves much less.
 *
 * - get: `--n` GETs of one of ten committed files of `--size` bytes (1 MiB), `--width` at a time.
 * - put: `--n` uploads (fileTokens + PUT upload_url of one buffer), `--width` at a time; with
 *   `--callback`, each followed by POST /1.1/fileCallback, as the SDKs upload. With
 *   `--interleave` (one at a time only), a and b take turns upload by upload within a round
 *   rather than round by round, so that both see the same load.
 * - big: one upload (streamed from a file) and one download of a `--size` file (use 104857600);
 *   MB/s of each.
 * `--pg <url>`: the Larder sides on PostgreSQL (a fresh schema each, dropped after), their backends'
 * CPU counted with the server's (found by application_name). `--b-shards` makes all of b's shard directories before measuring (a long-running server's store).
 * `--warm <n>` (30): unmeasured uploads per side first (put mode, small files).
 * `--b` defaults to this checkout. With `--floor` (put mode, `--interleave`), a third side takes
 * its turns too: bench/upload-floor.mjs, the least a plain Node server does for the same durable
 * upload (md5, write, link, both fsyncs; no database): how much of a side's CPU is its own.
 */
import { createReadStream, mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { BENCH_KEYS, REPO_ROOT, startServer, type ServerProcess } from './server-process.ts';
import { statCpuSeconds, threadCpu } from './process-cpu.ts';
import { startUploadFloor } from './upload-floor-process.ts';
import { dropSchema, ensureDatabase, freshSchemaName } from './bench-database.ts';
import pg from 'pg';

const { values: flags } = parseArgs({
  options: {
    a: { type: 'string' }, b: { type: 'string' }, mode: { type: 'string', default: 'get' }, rounds: { type: 'string', default: '6' },
    n: { type: 'string', default: '100' }, callback: { type: 'boolean', default: false }, interleave: { type: 'boolean', default: false }, floor: { type: 'boolean', default: false }, pg: { type: 'string' }, 'b-shards': { type: 'boolean', default: false }, warm: { type: 'string', default: '30' }, size: { type: 'string', default: '1048576' }, width: { type: 'string', default: '1' },
  },
});
if (!flags.a) throw new Error('--a <checkout> is required');
const SIZE = Number(flags.size);
const N = Number(flags.n);
const WIDTH = Number(flags.width);
const KEYS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

function call(url: string, method: string, headers: Record<string, string>, body?: Buffer | string | Readable): Promise<{ status: number; body: Buffer; bytes: number }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      let bytes = 0;
      const keep = method !== 'GET';
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (keep) parts.push(c);
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(parts), bytes }));
    });
    req.on('error', fail);
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}

/** CPU ms per thread name (tid for the main thread: `main`) of a process. */
function threadsMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of threadCpu(pid)) {
    const name = t.tid === String(pid) ? 'main' : `${t.name}:${t.tid}`;
    out.set(name, (out.get(name) ?? 0) + t.seconds * 1000);
  }
  return out;
}

/** CPU ms (user + system) of a process and of its main thread, plus that of `extra` processes (PostgreSQL backends) in `all`. */
function cpuMs(pid: number, extra: readonly number[] = []): { all: number; main: number } {
  // A backend that ended counts 0.
  const ms = (path: string) => (statCpuSeconds(path) ?? 0) * 1000;
  let all = ms(`/proc/${pid}/stat`);
  for (const b of extra) all += ms(`/proc/${b}/stat`);
  return { all, main: ms(`/proc/${pid}/task/${pid}/stat`) };
}

/** threadsMs of the server, with its PostgreSQL backends as one more "thread". */
function sideThreadsMs(s: Side): Map<string, number> {
  const out = threadsMs(s.server.pid);
  if (s.backends.length) out.set('postgres backends', cpuMs(s.backends[0], s.backends.slice(1)).all);
  return out;
}

/** BENCH_B_PG_OPTIONS (e.g. `-c synchronous_commit=off`): settings of side b's connections only. */
function withOptions(url: string, options: string | undefined): string {
  if (!options) return url;
  const u = new URL(url);
  u.searchParams.set('options', options);
  return u.toString();
}

/** `url` with an application_name, by which a side's backends are found in pg_stat_activity. */
function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

async function upload(base: string, body: Buffer | (() => Readable), size: number): Promise<string> {
  const tk = await call(`${base}/1.1/fileTokens`, 'POST', KEYS, JSON.stringify({ name: 'f.bin', metaData: { size } }));
  const t = JSON.parse(tk.body.toString()) as { upload_url: string; url: string; token: string };
  const put = await call(t.upload_url, 'PUT', { 'content-type': 'application/octet-stream', 'content-length': String(size) }, typeof body === 'function' ? body() : body);
  if (put.status !== 200) throw new Error(`PUT ${put.status} ${put.body.toString()}`);
  if (flags.callback) {
    const cb = await call(`${base}/1.1/fileCallback`, 'POST', KEYS, JSON.stringify({ token: t.token, result: true }));
    if (cb.status !== 200) throw new Error(`fileCallback ${cb.status} ${cb.body.toString()}`);
  }
  return t.url;
}

async function download(url: string): Promise<void> {
  const got = await call(url, 'GET', {});
  if (got.status !== 200 || got.bytes !== SIZE) throw new Error(`GET ${got.status} ${got.bytes}`);
}

/** Runs f(0..n-1), `width` at a time; the wall time of each call. */
async function inParallel(n: number, width: number, f: (i: number) => Promise<void>): Promise<number[]> {
  let next = 0;
  const walls: number[] = [];
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      const i = next++;
      const t = performance.now();
      await f(i);
      walls.push(performance.now() - t);
    }
  }));
  return walls;
}

interface Side {
  name: string;
  server: ServerProcess;
  urls: string[];
  results: { all: number; main: number; wall: number; extra?: string }[];
  /** CPU ms per thread name over all rounds, and the operations measured. */
  threads: Map<string, number>;
  ops: number;
  /** --pg: the server's PostgreSQL backends (found again before every round), its schema and URL. */
  backends: number[];
  pg?: { url: string; schema: string; app: string };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'larder-files-ab-'));
  const data = Buffer.alloc(SIZE);
  for (let i = 0; i + 4 <= data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
  const src = join(dir, 'src.bin');
  await writeFile(src, data);
  const sides: Side[] = [];
  try {
    for (const [name, root] of [['a', flags.a!], ['b', flags.b ?? REPO_ROOT]] as const) {
      // BENCH_B_NODE_ARGS: node flags for side b only (e.g. a V8 setting tried against the same code as a).
      const bArgs = name === 'b' && process.env.BENCH_B_NODE_ARGS ? { nodeArgs: process.env.BENCH_B_NODE_ARGS.split(' ').filter(Boolean) } : {};
      // --pg <url>: each side on a fresh schema of that database, its backends' CPU counted with its own.
      const pgSide = flags.pg ? { url: withOptions(withApplicationName(flags.pg, `files-ab-${process.pid}-${name}`), name === 'b' ? process.env.BENCH_B_PG_OPTIONS : undefined), schema: `${freshSchemaName()}_${name}`, app: `files-ab-${process.pid}-${name}` } : undefined;
      if (pgSide) await ensureDatabase(flags.pg!);
      const storage = pgSide ? { kind: 'postgres' as const, url: pgSide.url, schema: pgSide.schema } : { kind: 'pglite' as const, dataDir: join(dir, `data-${name}`) };
      const server = await startServer(storage, 1, { root, ...bArgs, env: { LARDER_FILE_MAX_BYTES: String(SIZE * 2 + 1024), ...(pgSide ? { LARDER_FILES_DIR: join(dir, `data-${name}`, 'files') } : {}) } });
      sides.push({ name, server, urls: [], results: [], threads: new Map(), ops: 0, backends: [], pg: pgSide });
      // --b-shards: b's local store gets all its shard directories first, as a server that has
      // stored thousands of files has (a fresh one makes one at most uploads: a failed link,
      // a mkdir and the link again).
      if (name === 'b' && flags['b-shards']) {
        const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
        for (const x of abc) for (const y of abc) mkdirSync(join(dir, `data-${name}`, 'files', x + y), { recursive: true });
      }
    }
    if (flags.floor) {
      if (!flags.interleave || flags.mode !== 'put') throw new Error('--floor takes --mode put --interleave');
      sides.push({ name: 'floor', server: await startUploadFloor(join(dir, 'floor')), urls: [], results: [], threads: new Map(), ops: 0, backends: [] });
    }
    const small = SIZE <= 16 * 1024 * 1024;
    for (const s of sides) {
      // Warm-up: the JIT and the engine's WASM compile on the first requests.
      // --warm: more, for a server past its youth (its JIT settles over the first few thousand
      // uploads: docs/benchmarks.md, "Files").
      const warm = small ? Number(flags.warm) : 1;
      for (let i = 0; i < warm; i++) s.urls.push(await upload(s.server.url, small ? data : () => createReadStream(src), SIZE));
      if (s.name !== 'floor') for (const u of s.urls.slice(0, 30)) await download(u);
      if (flags.mode === 'get') for (let i = 0; i < 3; i++) for (const u of s.urls.slice(0, 10)) await download(u);
    }
    const rounds = Number(flags.rounds);
    const stats = flags.pg ? new pg.Client({ connectionString: flags.pg }) : undefined;
    await stats?.connect();
    /** Finds each --pg side's backends again (the pool may have grown). */
    const findBackends = async () => {
      for (const s of sides) {
        if (!s.pg || !stats) continue;
        const { rows } = await stats.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [s.pg.app]);
        s.backends = rows.map((r) => r.pid);
      }
    };
    for (let r = 0; r < rounds && flags.interleave; r++) {
      await findBackends();
      // Upload by upload, a and b in turn (the first of each pair swapped every time): both
      // servers see the same moments of the machine's load, which changes within seconds here.
      const acc = sides.map(() => ({ all: 0, main: 0, walls: [] as number[] }));
      const t0 = sides.map((s) => sideThreadsMs(s));
      const order = sides.map((_, k) => k);
      for (let i = 0; i < N; i++) {
        // Who goes first turns with every upload.
        for (const k of order.map((_, j) => order[(i + j) % order.length])) {
          const s = sides[k];
          const c0 = cpuMs(s.server.pid, s.backends);
          const t = performance.now();
          await upload(s.server.url, data, SIZE);
          acc[k].walls.push(performance.now() - t);
          const c1 = cpuMs(s.server.pid, s.backends);
          acc[k].all += c1.all - c0.all;
          acc[k].main += c1.main - c0.main;
        }
      }
      sides.forEach((s, k) => {
        for (const [name, v] of sideThreadsMs(s)) s.threads.set(name, (s.threads.get(name) ?? 0) + v - (t0[k].get(name) ?? 0));
        s.ops += N;
        s.results.push({ all: acc[k].all / N, main: acc[k].main / N, wall: median(acc[k].walls) });
        console.log(`round ${r + 1} ${s.name}: server CPU ${(acc[k].all / N).toFixed(2)} ms/op (main thread ${(acc[k].main / N).toFixed(2)}), wall median ${median(acc[k].walls).toFixed(2)} ms; load ${loadavg()[0].toFixed(1)}`);
      });
    }
    for (let r = 0; r < rounds && !flags.interleave; r++) {
      await findBackends();
      for (const s of r % 2 ? [...sides].reverse() : sides) {
        const c0 = cpuMs(s.server.pid, s.backends);
        const t0 = sideThreadsMs(s);
        let walls: number[];
        let ops = N;
        let extra: string | undefined;
        if (flags.mode === 'get') {
          walls = await inParallel(N, WIDTH, (i) => download(s.urls[i % 10]));
        } else if (flags.mode === 'put') {
          walls = await inParallel(N, WIDTH, async () => void (await upload(s.server.url, data, SIZE)));
        } else {
          ops = 1;
          let t = performance.now();
          const url = await upload(s.server.url, () => createReadStream(src), SIZE);
          const up = performance.now() - t;
          t = performance.now();
          await download(url);
          const down = performance.now() - t;
          walls = [up];
          extra = `up ${(SIZE / 1048576 / (up / 1000)).toFixed(0)} MB/s, down ${(SIZE / 1048576 / (down / 1000)).toFixed(0)} MB/s`;
        }
        const c1 = cpuMs(s.server.pid, s.backends);
        for (const [k, v] of sideThreadsMs(s)) s.threads.set(k, (s.threads.get(k) ?? 0) + v - (t0.get(k) ?? 0));
        s.ops += ops;
        s.results.push({ all: (c1.all - c0.all) / ops, main: (c1.main - c0.main) / ops, wall: median(walls), extra });
        const last = s.results[s.results.length - 1];
        console.log(`round ${r + 1} ${s.name}: server CPU ${last.all.toFixed(2)} ms/op (main thread ${last.main.toFixed(2)}), wall median ${last.wall.toFixed(2)} ms${extra ? `; ${extra}` : ''}; load ${loadavg()[0].toFixed(1)}`);
      }
    }
    console.log(`mode ${flags.mode}, ${N} ops of ${SIZE} bytes per round, width ${WIDTH}; a = ${flags.a}, b = ${flags.b ?? REPO_ROOT}`);
    for (const s of sides) {
      const col = (k: 'all' | 'main' | 'wall') => s.results.map((x) => x[k].toFixed(2)).join(' / ');
      console.log(`${s.name} threads, CPU ms/op over all rounds: ${[...s.threads].filter(([, v]) => v / s.ops >= 0.05).map(([k, v]) => `${k} ${(v / s.ops).toFixed(2)}`).join(', ')}`);
      console.log(`${s.name}: CPU/op median ${median(s.results.map((x) => x.all)).toFixed(2)} ms [${col('all')}]; main ${median(s.results.map((x) => x.main)).toFixed(2)} [${col('main')}]; wall median ${median(s.results.map((x) => x.wall)).toFixed(2)} ms [${col('wall')}]`);
    }
    await stats?.end();
  } finally {
    for (const s of sides) await s.server.stop();
    for (const s of sides) if (s.pg) await dropSchema(flags.pg!, s.pg.schema);
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
