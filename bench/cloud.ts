/**
 * Cloud code in `npm run bench` (issue 10): a Larder server that supervises the test LeanEngine
 * app (test/fixtures/engine-app, npm `leanengine`), and two comparisons on it:
 *   - create with a no-op beforeSave (class Counter) next to create in a class without hooks
 *     (target: at least 0.5 of it);
 *   - a cloud function round trip through Larder next to calling the engine directly
 *     (target: at least 0.7 of it).
 * Each comparison's two sides are measured in interleaved slices (measurePair).
 */
import { join } from 'node:path';
import { runHttpLoad, type HttpRequestSpec, type HttpRunResult } from './http-load.ts';
import { BENCH_KEYS, COUNTING_LIMITS, freePort, REPO_ROOT, startServer, type ServerProcess, type ServerStorage } from './server-process.ts';
import { fmtInt, type ResultRow } from './verdict.ts';

/** What the cloud benchmark needs. */
export interface CloudBenchOptions {
  storage: ServerStorage;
  workers: number;
  durationSec: number;
  warmupSec: number;
  connections: number;
  /** Per-client rate limits counting each call (bench/server-process.ts COUNTING_LIMITS); off when false. */
  rateLimits: boolean;
  log: (line: string) => void;
  track: (s: ServerProcess) => void;
}

async function waitForHooks(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/1.1/larder/engine`, { headers: { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': `${BENCH_KEYS.masterKey},master` } });
      const body = (await res.json()) as { hooks?: string[] };
      if (body.hooks?.includes('__before_save_for_Counter')) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the engine hook list was not read in time');
}

/** Slices each side of a comparison is measured in (interleaved, see measurePair). */
const SLICES = 4;

/** Several slices of one workload as one run: calls and time added up; latency from the slices. */
function combined(runs: readonly HttpRunResult[]): HttpRunResult {
  const sum = (f: (r: HttpRunResult) => number) => runs.reduce((s, r) => s + f(r), 0);
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const p50s = runs.map((r) => r.p50Ms).sort((a, b) => a - b);
  const durationSec = sum((r) => r.durationSec);
  const ok = sum((r) => r.ok);
  return {
    perSec: durationSec > 0 ? ok / durationSec : 0,
    // The slices' median p50 and their highest p99 (autocannon's histograms are not merged).
    p50Ms: p50s[Math.floor((p50s.length - 1) / 2)] ?? 0,
    p99Ms: Math.max(0, ...runs.map((r) => r.p99Ms)),
    ok,
    sent: sum((r) => r.sent),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    hiddenErrors: sum((r) => r.hiddenErrors),
    durationSec,
    statuses,
  };
}

/**
 * The two sides of one comparison, measured in alternating slices (A B B A A B B A) after a
 * warm-up of each, instead of one whole run after the other: on this shared 2-core machine the
 * load moves within seconds, and the side measured second also ran with its code (Larder's hook
 * path, the engine's) warmed only by its own one-second warm-up. Each side gets the full duration.
 */
async function measurePair(a: { url: string; spec: HttpRequestSpec }, b: { url: string; spec: HttpRequestSpec }, o: CloudBenchOptions): Promise<[HttpRunResult, HttpRunResult]> {
  if (o.warmupSec > 0) {
    await runHttpLoad(a.url, a.spec, { durationSec: o.warmupSec }, o.connections);
    await runHttpLoad(b.url, b.spec, { durationSec: o.warmupSec }, o.connections);
  }
  const slice = { durationSec: o.durationSec / SLICES };
  const runsA: HttpRunResult[] = [];
  const runsB: HttpRunResult[] = [];
  for (let i = 0; i < SLICES; i++) {
    const aFirst = i % 2 === 0;
    for (const side of aFirst ? [a, b] : [b, a]) (side === a ? runsA : runsB).push(await runHttpLoad(side.url, side.spec, slice, o.connections));
  }
  return [combined(runsA), combined(runsB)];
}

function row(workload: string, larder: HttpRunResult, base: HttpRunResult, baseName: string, target: number): ResultRow {
  const ratio = base.perSec > 0 ? larder.perSec / base.perSec : 0;
  const notes: string[] = [];
  if (larder.non2xx || larder.errors) notes.push(`${workload}: ${larder.non2xx} non-2xx answers, ${larder.errors} errors (${JSON.stringify(larder.statuses)})`);
  notes.push(`${workload}: compared with ${baseName}`);
  return {
    workload,
    larder: `${fmtInt(larder.perSec)}/s`,
    larderLatency: `p50 ${larder.p50Ms} ms, p99 ${larder.p99Ms} ms`,
    direct: `${fmtInt(base.perSec)}/s`,
    directLatency: `p50 ${base.p50Ms} ms, p99 ${base.p99Ms} ms`,
    ratio: ratio.toFixed(2),
    target: `>= ${target}`,
    outcome: !larder.non2xx && !larder.errors && ratio >= target ? 'pass' : 'MISSED',
    notes,
  };
}

/** Runs the two cloud code comparisons; the server and its engine are stopped afterwards. */
export async function cloudBench(o: CloudBenchOptions): Promise<ResultRow[]> {
  const enginePort = await freePort();
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  const server = await startServer(o.storage, o.workers, {
    onSpawn: o.track,
    env: { LARDER_ENGINE_DIR: join(REPO_ROOT, 'test', 'fixtures', 'engine-app'), LARDER_ENGINE_URL: engineUrl, LARDER_ENGINE_REFRESH_SECONDS: '0', ...(o.rateLimits ? COUNTING_LIMITS : {}) },
  });
  try {
    await waitForHooks(server.url, 300_000);
    if (o.rateLimits) o.log('bench: cloud code: per-client rate limits on (counting, never refusing)');
    let n = 0;
    const create = (className: string): HttpRequestSpec => ({ method: 'POST', path: () => `/1.1/classes/${className}`, body: () => `{"n":${n++}}` });
    o.log('bench: cloud code: create without hooks and with a no-op beforeSave (interleaved)');
    const [plain, hooked] = await measurePair({ url: server.url, spec: create('BenchNoHooks') }, { url: server.url, spec: create('Counter') }, o);
    const fn: HttpRequestSpec = { method: 'POST', path: () => '/1.1/functions/hello', body: () => '{"name":"bench"}' };
    o.log('bench: cloud code: function round trip, engine directly and through Larder (interleaved)');
    const [direct, through] = await measurePair({ url: engineUrl, spec: fn }, { url: server.url, spec: fn }, o);
    return [
      row('create with a no-op beforeSave (LeanEngine)', hooked, plain, 'create in a class without hooks, same server (the "direct" column)', 0.5),
      row('cloud function round trip (AV.Cloud.run)', through, direct, 'the same function called on the engine directly (the "direct" column)', 0.7),
    ];
  } finally {
    await server.stop();
  }
}
