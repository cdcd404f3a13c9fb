/**
 * Plain GET latency while clients run expensive queries (issue 12 item 4: "a plain GET's p99
 * stays under 200 ms while 32 heavy queries run"). Starts a real `larder` server, seeds N objects
 * of ~600 characters, then keeps 32 app-key finds with 40 `$regex` branches in an `$or` (none
 * matches, so each scans the whole class) in flight while one client sends plain GETs by id one
 * after another, and reports the GETs' p50/p99/max, what the heavy queries answered, and the
 * machine's load (uptime).
 *
 *   npx tsx bench/heavy-queries.ts [--engine postgres|pglite] [--objects 20000] [--seconds 20]
 *     [--slots N] [--slice MS] [--heavy 32]
 *
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/larder_bench), a
 * fresh schema dropped at the end. Rate limits are off (server-process.ts); the heavy lane
 * (LARDER_HEAVY_QUERY_SLOTS) has its default unless --slots is given, the embedded engine's slice
 * (LARDER_EMBEDDED_SLICE_MS) unless --slice is. On the embedded engine it also reports the
 * engine's reopens from /metrics: how many, their mean wall time and the mean CPU time of the
 * engine thread for them (the part a busy machine does not inflate).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName } from './bench-database.ts';
import { BENCH_KEYS, freePort, startServer, type ServerProcess, type ServerStorage } from './server-process.ts';

const BRANCHES = 40;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const HEADERS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };

async function seed(base: string, objects: number): Promise<string> {
  let first = '';
  for (let from = 0; from < objects; from += 1000) {
    const n = Math.min(1000, objects - from);
    const requests = Array.from({ length: n }, (_, k) => ({ method: 'POST', path: '/1.1/classes/Heavy', body: { n: from + k, text: `${from + k}`.padEnd(600, 'abcdefghij') } }));
    const res = await fetch(`${base}/1.1/batch`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ requests }) });
    const out = (await res.json()) as { success?: { objectId: string } }[];
    if (res.status !== 200 || !out[0]?.success) throw new Error(`seed: ${res.status} ${JSON.stringify(out).slice(0, 300)}`);
    first ||= out[0].success.objectId;
    process.stdout.write(`\rseeded ${from + n} / ${objects}`);
  }
  process.stdout.write('\n');
  return first;
}

/** The embedded engine's reopens so far (larder_embedded_reopen_seconds and _cpu_seconds): count and sums, ms. */
async function reopens(port: number): Promise<{ count: number; wallMs: number; cpuMs: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    count: value('larder_embedded_reopen_seconds_count'),
    wallMs: value('larder_embedded_reopen_seconds_sum') * 1000,
    cpuMs: value('larder_embedded_reopen_cpu_seconds_sum') * 1000,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

async function main(): Promise<void> {
  const engine = arg('engine', 'postgres');
  const objects = Number(arg('objects', '20000'));
  const seconds = Number(arg('seconds', '20'));
  const slots = arg('slots', '');
  const slice = arg('slice', '');
  const heavyCount = Number(arg('heavy', '32'));
  const metricsPort = await freePort();
  const storage: ServerStorage = engine === 'pglite'
    ? { kind: 'pglite', dataDir: mkdtempSync(join(tmpdir(), 'larder-heavy-bench-')) }
    : { kind: 'postgres', url: benchDatabaseUrl(), schema: freshSchemaName() };
  if (storage.kind === 'postgres') await ensureDatabase(storage.url);
  let server: ServerProcess | undefined;
  try {
    const env: Record<string, string> = { LARDER_METRICS_PORT: String(metricsPort) };
    if (slots) env.LARDER_HEAVY_QUERY_SLOTS = slots;
    if (slice) env.LARDER_EMBEDDED_SLICE_MS = slice;
    server = await startServer(storage, 1, { env });
    const id = await seed(server.url, objects);
    const or = Array.from({ length: BRANCHES }, (_, i) => ({ text: { $regex: `${i}z.*y.*x.*w.*v$` } }));
    const heavyUrl = `${server.url}/1.1/classes/Heavy?where=${encodeURIComponent(JSON.stringify({ $or: or }))}&limit=10`;
    const end = Date.now() + seconds * 1000;
    const answers = new Map<string, number>();
    const loop = async () => {
      while (Date.now() < end) {
        const res = await fetch(heavyUrl, { headers: HEADERS });
        const body = (await res.json()) as { code?: number };
        const key = `${res.status}${body.code ? ` code ${body.code}` : ''}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
    };
    const reopensBefore = await reopens(metricsPort);
    const heavies = Array.from({ length: heavyCount }, loop);
    await new Promise((r) => setTimeout(r, 1000));
    const gets: number[] = [];
    let failed = 0;
    while (Date.now() < end) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/1.1/classes/Heavy/${id}`, { headers: HEADERS });
      await res.arrayBuffer();
      gets.push(performance.now() - t0);
      if (res.status !== 200) failed++;
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(heavies);
    const reopensAfter = await reopens(metricsPort);
    const reopenCount = reopensAfter.count - reopensBefore.count;
    gets.sort((a, b) => a - b);
    console.log(JSON.stringify({
      engine, objects, heavyConcurrent: heavyCount, slots: slots || 'default', slice: slice || 'default',
      gets: gets.length, getsFailed: failed,
      getP50Ms: Math.round(percentile(gets, 50)), getP99Ms: Math.round(percentile(gets, 99)), getMaxMs: Math.round(gets[gets.length - 1]),
      heavyAnswers: Object.fromEntries(answers),
      ...(engine === 'pglite' ? {
        reopens: reopenCount,
        reopenMeanMs: reopenCount ? Math.round((reopensAfter.wallMs - reopensBefore.wallMs) / reopenCount) : undefined,
        reopenMeanCpuMs: reopenCount ? Math.round((reopensAfter.cpuMs - reopensBefore.cpuMs) / reopenCount) : undefined,
      } : {}),
      uptime: execFileSync('uptime', { encoding: 'utf8' }).trim(),
    }, null, 2));
  } finally {
    await server?.stop();
    if (storage.kind === 'postgres') await dropSchema(storage.url, storage.schema);
    else rmSync(storage.dataDir, { recursive: true, force: true });
  }
}

await main();
