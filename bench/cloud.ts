/**
 * Cloud code in `npm run bench` (issue 10): a Larder server that supervises the test LeanEngine
 * app (test/fixtures/engine-app, npm `leanengine`), and two comparisons on it:
 *   - create with a no-op beforeSave (class Counter) next to create in a class without hooks
 *     (target: at least 0.5 of it);
 *   - a cloud function round trip through Larder next to calling the engine directly
 *     (target: at least 0.7 of it).
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

async function measure(baseUrl: string, spec: HttpRequestSpec, o: CloudBenchOptions): Promise<HttpRunResult> {
  if (o.warmupSec > 0) await runHttpLoad(baseUrl, spec, { durationSec: o.warmupSec }, o.connections);
  return runHttpLoad(baseUrl, spec, { durationSec: o.durationSec }, o.connections);
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
    o.log('bench: cloud code: create without hooks');
    const plain = await measure(server.url, create('BenchNoHooks'), o);
    o.log('bench: cloud code: create with a no-op beforeSave');
    const hooked = await measure(server.url, create('Counter'), o);
    const fn: HttpRequestSpec = { method: 'POST', path: () => '/1.1/functions/hello', body: () => '{"name":"bench"}' };
    o.log('bench: cloud code: function round trip, engine directly');
    const direct = await measure(engineUrl, fn, o);
    o.log('bench: cloud code: function round trip through Larder');
    const through = await measure(server.url, fn, o);
    return [
      row('create with a no-op beforeSave (LeanEngine)', hooked, plain, 'create in a class without hooks, same server (the "direct" column)', 0.5),
      row('cloud function round trip (AV.Cloud.run)', through, direct, 'the same function called on the engine directly (the "direct" column)', 0.7),
    ];
  } finally {
    await server.stop();
  }
}
