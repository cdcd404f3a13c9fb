/**
 * `npm run bench:import`: how fast `larder import` writes a LeanCloud export into PostgreSQL.
 * Generates an export in LeanCloud's format (JSON Lines with the header line; mixed types,
 * public/user/role ACLs, pointers, users with SHA-512 hashes, salts, session tokens and
 * authData, a relation file) in a temporary folder, packs the same files as a .tar.gz, then runs
 * the real CLI on each into a fresh PostgreSQL schema and prints objects/s. A second import of
 * the folder measures the idempotent re-run (nothing changes, nothing is written).
 *
 * Options: --objects <n> (default 200000), --batch-size <n>, --concurrency <n>, --keep.
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/larder_bench); the
 * import uses the database of that name with `_import` appended (created when missing).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import pg from 'pg';
import { pack } from 'tar-stream';
import { benchDatabaseUrl, ensureDatabase, freshSchemaName } from './bench-database.ts';
import { clientBackendPids, cpuSecondsOf } from './process-cpu.ts';

const ROOT = new URL('../', import.meta.url).pathname;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} needs a positive integer`);
  return n;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const iso = (ms: number): string => new Date(ms).toISOString();

/** Writes `<Class>.0.jsonl` with `n` objects made by `make`, streaming (bounded memory). */
async function writeClass(dir: string, className: string, n: number, make: (i: number) => Record<string, unknown>): Promise<void> {
  const out = createWriteStream(join(dir, `${className}.0.jsonl`));
  const write = async (s: string): Promise<void> => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(`#filetype:JSON-streaming {"type":"Class","class":"${className}"}\n`);
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += JSON.stringify(make(i)) + '\n';
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  out.end();
  await once(out, 'finish');
}

const userId = (i: number): string => `5e${String(i).padStart(22, '0')}`;

/** Generates the export: 10% users, the rest posts, plus one relation file. */
async function generate(dir: string, total: number): Promise<void> {
  const users = Math.max(1, Math.floor(total / 10));
  const posts = total - users;
  const t0 = Date.UTC(2020, 0, 1);
  await writeClass(dir, '_User', users, (i) => ({
    salt: hex(24), password: randomBytes(64).toString('base64'), sessionToken: hex(12) + String(i).padStart(6, '0'),
    objectId: userId(i), username: `user${i}`, email: `user${i}@example.com`, emailVerified: i % 2 === 0, mobilePhoneVerified: false,
    ...(i % 5 === 0 ? { authData: { weixin: { openid: `wx-${i}`, access_token: hex(8), expires_in: 7200 } } } : {}),
    createdAt: iso(t0 + i * 1000), updatedAt: iso(t0 + i * 1000 + 500),
    ACL: { '*': { read: true }, [userId(i)]: { read: true, write: true } },
  }));
  const acls = [{ '*': { read: true, write: true } }, { '*': { read: true } }, { 'role:editors': { read: true, write: true } }];
  await writeClass(dir, 'Post', posts, (i) => ({
    objectId: `5f${String(i).padStart(22, '0')}`,
    updatedAt: iso(t0 + i * 777 + 1), createdAt: iso(t0 + i * 777),
    title: `Post number ${i} ${hex(8)}`, body: hex(64), likes: i % 1000, score: i / 7, published: i % 3 === 0,
    publishedAt: { __type: 'Date', iso: iso(t0 + i * 60_000) },
    author: { __type: 'Pointer', className: '_User', objectId: userId(i % users) },
    location: { __type: 'GeoPoint', latitude: (i % 180) - 90, longitude: (i % 360) - 180 },
    tags: ['a', `t${i % 50}`, i % 7], meta: { views: i * 3, source: { app: 'bench', v: 2 } },
    ACL: i % 4 === 3 ? { [userId(i % users)]: { read: true, write: true } } : acls[i % 3],
  }));
  const join1 = createWriteStream(join(dir, '_Join:fans:Post.0.jsonl'));
  let rows = '#filetype:JSON-streaming {"type":"Join","class":"_Join:fans:Post","relatedClass":"_User"}\n';
  for (let i = 0; i < Math.min(posts, 20_000); i++) rows += JSON.stringify({ owningId: `5f${String(i).padStart(22, '0')}`, relatedId: userId(i % users) }) + '\n';
  join1.end(rows);
  await once(join1, 'finish');
}

async function packArchive(dir: string, names: string[], archive: string): Promise<void> {
  const p = pack();
  const done = pipeline(p, createGzip({ level: 6 }), createWriteStream(archive));
  for (const name of names) {
    const path = join(dir, name);
    const entry = p.entry({ name, size: statSync(path).size });
    await pipeline(createReadStream(path), entry);
  }
  p.finalize();
  await done;
}

interface Run {
  label: string;
  seconds: number;
  objectsPerSec: number;
  /** CPU seconds of the import process and of its PostgreSQL backends. */
  cpuNode: number;
  cpuPg: number;
  summary: string;
}

/**
 * Runs the real CLI and samples the CPU time of it and of the PostgreSQL backends serving its
 * schema every 100 ms (the last sample before each exits counts). On a shared machine the wall
 * time swings with other people's work; CPU seconds per object say what an idle machine would do.
 */
async function runCli(label: string, path: string, url: string, schema: string, extra: string[], objects: number, admin: pg.Client): Promise<Run> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'import', path, ...extra], {
    cwd: ROOT, env: { ...process.env, DATABASE_URL: url, LARDER_DB_SCHEMA: schema, LARDER_LOG_LEVEL: 'warn' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const seen = new Map<number, number>();
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    const pids = [child.pid ?? 0];
    pids.push(...(await clientBackendPids(admin)));
    for (const pid of pids) {
      const c = cpuSecondsOf(pid);
      if (c !== undefined) seen.set(pid, c);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const [status] = await exited;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (status !== 0) throw new Error(`${label}: larder import exited ${status}\n${stdout}\n${stderr}`);
  const cpuNode = seen.get(child.pid ?? 0) ?? 0;
  const cpuPg = [...seen].filter(([pid]) => pid !== child.pid).reduce((n, [, c]) => n + c, 0);
  const summary = stdout.trim().split('\n').filter((l) => !l.startsWith('reading ') && !/objects read/.test(l)).join('\n');
  return { label, seconds, objectsPerSec: Math.round(objects / seconds), cpuNode, cpuPg, summary };
}

async function main(): Promise<void> {
  const objects = flag('--objects', 200_000);
  const cores = availableParallelism();
  const extra: string[] = [];
  if (process.argv.includes('--batch-size')) extra.push('--batch-size', String(flag('--batch-size', 1000)));
  if (process.argv.includes('--concurrency')) extra.push('--concurrency', String(flag('--concurrency', 3)));
  // A database of its own: the CPU of every backend in it is this import's (other benchmarks
  // running on the machine use larder_bench).
  const base = new URL(benchDatabaseUrl());
  base.pathname = `${base.pathname.replace(/\/$/, '')}_import`;
  const url = base.toString();
  await ensureDatabase(url);
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-import-'));
  const schemas: string[] = [];
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    console.log(`Generating ${objects.toLocaleString('en-US')} objects in LeanCloud export format in ${dir} ...`);
    await generate(dir, objects);
    const names = ['_User.0.jsonl', 'Post.0.jsonl', '_Join:fans:Post.0.jsonl'];
    const archive = join(dir, 'export.tar.gz');
    await packArchive(dir, names, archive);
    const folder = join(dir, 'folder');
    await import('node:fs/promises').then(async (fs) => {
      await fs.mkdir(folder);
      for (const n of names) await fs.rename(join(dir, n), join(folder, n));
    });
    const bytes = names.reduce((n, name) => n + statSync(join(folder, name)).size, 0);
    console.log(`JSONL ${(bytes / 1e6).toFixed(1)} MB, archive ${(statSync(archive).size / 1e6).toFixed(1)} MB`);
    const runs: Run[] = [];
    const s1 = freshSchemaName() + '_f';
    schemas.push(s1);
    runs.push(await runCli('folder of .jsonl, empty database', folder, url, s1, extra, objects, admin));
    runs.push(await runCli('same folder again (idempotent re-run)', folder, url, s1, extra, objects, admin));
    const s2 = freshSchemaName() + '_a';
    schemas.push(s2);
    runs.push(await runCli('.tar.gz archive, empty database', archive, url, s2, extra, objects, admin));
    const counted = await admin.query(`SELECT (SELECT count(*) FROM "${s2}"."Post")::int + (SELECT count(*) FROM "${s2}"."_User")::int AS n`);
    if (counted.rows[0].n !== objects) throw new Error(`expected ${objects} rows, found ${counted.rows[0].n}`);
    for (const r of runs) {
      const cpu = r.cpuNode + r.cpuPg;
      // The import's JavaScript runs on one thread; PostgreSQL's share spreads over the cores.
      const idle = Math.round(objects / Math.max(cpu / cores, r.cpuNode, 0.001));
      console.log(`\n== ${r.label}: ${r.seconds.toFixed(1)} s wall (process start to exit) = ${r.objectsPerSec.toLocaleString('en-US')} objects/s`);
      console.log(`   CPU: import process ${r.cpuNode.toFixed(1)} s + PostgreSQL backends ${r.cpuPg.toFixed(1)} s = ${(cpu * 1e6 / objects).toFixed(0)} µs per object;`
        + ` on ${cores} idle cores that is at most ${idle.toLocaleString('en-US')} objects/s (load average now ${loadavg()[0].toFixed(1)})`);
      console.log(r.summary);
    }
  } finally {
    if (!process.argv.includes('--keep')) {
      for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      rmSync(dir, { recursive: true, force: true });
    }
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
