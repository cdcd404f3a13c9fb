/**
 * `npm run bench:livequery`: LiveQuery under load, on one Larder process with PostgreSQL
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/larder_bench; a fresh schema
 * per run, dropped afterwards).
 *
 * 1. 1,000 WebSocket connections (lc.protobuf2.3), each logged in with one subscription id
 *    holding 10 subscriptions `{room: <one of 1,000 rooms>}`: 10,000 subscriptions. Server RSS
 *    before and after subscribing gives the memory per subscription.
 * 2. Writes at a fixed rate (500/s) through POST /1.1/classes, each into a random room (so each
 *    matches about 10 subscriptions); delivery latency from sending the write to each client's
 *    receipt of its push: p50, p99, max, and the writes per second actually achieved; the CPU
 *    of the server, its PostgreSQL backends and this process per write and per push, and this
 *    process's event-loop delay (the load generator must not be the bottleneck).
 * 3. A verdict line: TARGET MET only for the full size, >= 98% of 500 writes/s, no failure,
 *    every push received and p99 <= 100 ms (docs/benchmarks.md).
 *
 * Flags: --connections N (1000), --subs-per-connection N (10), --rooms N (1000), --rate N (500),
 * --duration S (20), --root <checkout> (run the server from another checkout, for A/B).
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';
import { encodeFrame } from '../src/modules/livequery/protocol/frame-codec.ts';
import { CMD, GenericCommand, type Command } from '../src/modules/livequery/protocol/messages.ts';
import { SubscriptionRegistry } from '../src/modules/livequery/store/subscription-registry.ts';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, redact } from './bench-database.ts';
import { settledRssMb } from './memory-sampler.ts';
import { backendPids, cpuOf, cpuUsed } from './process-cpu.ts';
import { RawHttpClient } from './raw-http.ts';
import { BENCH_KEYS, startServer, type ServerProcess } from './server-process.ts';

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '1000' },
    'subs-per-connection': { type: 'string', default: '10' },
    rooms: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '20' },
    // Another checkout to run the server from (A/B comparisons of the server with this client).
    root: { type: 'string' },
  },
});
const CONNECTIONS = Number(flags.connections);
const SUBS = Number(flags['subs-per-connection']);
const ROOMS = Number(flags.rooms);
const RATE = Number(flags.rate);
const DURATION = Number(flags.duration);
const HEADERS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' } as const;

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

// node:http with kept-alive sockets: the load generator shares the machine with the server,
// and fetch() costs it several times the CPU per request (WHATWG streams, AbortSignals).
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(base: string, path: string, body: unknown): Promise<unknown> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method: 'POST', agent, headers: { ...HEADERS, 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`POST ${path}: ${res.statusCode} ${text}`));
        else resolve(JSON.parse(text));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `count` jobs `parallel` at a time. */
async function pool(count: number, parallel: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await job(next++);
  }));
}

/**
 * Heap held per subscription by the registry every process keeps (the server's only
 * per-subscription memory besides the database): measured here on the server's own class, as
 * RSS deltas of a whole process are noise at this size.
 */
function registryBytesPerSubscription(count: number, rooms: number): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const registry = new SubscriptionRegistry();
  for (let k = 0; k < count; k++) {
    registry.upsert({ queryId: `q${k.toString(16).padStart(31, '0')}`, subscriptionId: `bench-${Math.floor(k / 10)}`, query: { className: 'BenchRoom', where: { room: `r${k % rooms}` }, returnACL: false } });
  }
  gc?.();
  const after = process.memoryUsage().heapUsed;
  if (registry.size !== count) throw new Error('registry lost subscriptions');
  return (after - before) / count;
}

/** Transactions committed in the bench database so far (each autocommit statement is one). */
async function commits(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0].n);
}

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const schema = freshSchemaName();
  let server: ServerProcess | undefined;
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  const sockets: WebSocket[] = [];
  let writer: RawHttpClient | undefined;
  try {
    server = await startServer({ kind: 'postgres', url, schema }, 1, { env: { LARDER_POOL_SIZE: '16' }, ...(flags.root ? { root: flags.root } : {}) });
    const base = server.url;
    console.log(`LiveQuery bench: ${CONNECTIONS} connections x ${SUBS} subscriptions, ${ROOMS} rooms, ${RATE} writes/s for ${DURATION} s; PostgreSQL ${redact(url)}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    const route = (await (await fetch(`${base}/v1/route?appId=${BENCH_KEYS.appId}`)).json()) as { server: string };

    const latencies: number[] = [];
    let pushes = 0;
    await pool(CONNECTIONS, 50, async (i) => {
      const ws = new WebSocket(route.server, 'lc.protobuf2.3', { perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const id = `bench-${i}`;
      ws.on('message', (data: Buffer) => {
        // The message as protobufjs decodes it (its fields read directly, without toObject's copy).
        const m = GenericCommand.decode(data) as unknown as Command;
        if (m.cmd !== CMD.data) return;
        const now = Date.now();
        for (const { data: text } of m.dataMessage?.msg ?? []) {
          const push = JSON.parse(text) as { object: { sentAt: number } };
          latencies.push(now - push.object.sentAt);
          pushes++;
        }
        ws.send(encodeFrame('protobuf2', { cmd: CMD.ack, installationId: id, service: 1, ackMessage: { ids: m.dataMessage?.ids ?? [] } }));
      });
      const loggedIn = new Promise<void>((resolve) => ws.once('message', () => resolve()));
      ws.send(encodeFrame('protobuf2', { cmd: CMD.login, i: 1, appId: BENCH_KEYS.appId, installationId: id, service: 1 }));
      await loggedIn;
      sockets.push(ws);
    });
    const rssConnected = await settledRssMb(server.pid);
    const started = Date.now();
    const subsInRoom = new Array<number>(ROOMS).fill(0);
    await pool(CONNECTIONS * SUBS, 16, async (k) => {
      const conn = Math.floor(k / SUBS);
      const room = (conn * 7 + (k % SUBS) * 101) % ROOMS;
      subsInRoom[room]++;
      await post(base, '/1.1/LiveQuery/subscribe', { query: { className: 'BenchRoom', where: { room: `r${room}` } }, id: `bench-${conn}` });
    });
    const subscribeSeconds = (Date.now() - started) / 1000;
    const rssSubscribed = await settledRssMb(server.pid);
    console.log(`subscribed ${CONNECTIONS * SUBS} in ${subscribeSeconds.toFixed(1)} s; server RSS ${rssConnected.toFixed(1)} MB -> ${rssSubscribed.toFixed(1)} MB = ${(((rssSubscribed - rssConnected) * 1024 * 1024) / (CONNECTIONS * SUBS)).toFixed(0)} bytes per subscription`);

    // Writes at a fixed rate, paced by the clock (not by timer ticks, which run late on a busy
    // event loop and would lower the rate asked): each carries its send time.
    let sent = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    let issued = 0;
    let expectedPushes = 0;
    const inFlight = new Set<Promise<void>>();
    // The timed writes go through a lean HTTP client (bench/raw-http.ts): node:http's would cost
    // this process, which shares the 2 cores with the server, as much CPU as the pushes.
    writer = new RawHttpClient(base, HEADERS);
    const write = writer;
    const pgPids = await backendPids(stats);
    const cpuBefore = cpuOf([server.pid, process.pid, ...pgPids]);
    const xactBefore = await commits(stats);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const writeStart = Date.now();
    const end = writeStart + DURATION * 1000;
    for (let now = writeStart; now < end; now = Date.now()) {
      const due = Math.floor(((now - writeStart) * RATE) / 1000);
      for (; issued < due; issued++) {
        const room = Math.floor(Math.random() * ROOMS);
        expectedPushes += subsInRoom[room];
        const p = write.post('/1.1/classes/BenchRoom', JSON.stringify({ room: `r${room}`, sentAt: Date.now() })).then(
          (r) => {
            if (r.status >= 300) throw new Error(`POST /1.1/classes/BenchRoom: ${r.status} ${r.body}`);
            sent++;
          },
        ).then(
          () => undefined,
          (err: unknown) => {
            failed++;
            firstFailure ??= err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
          },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(inFlight);
    const writeSeconds = (Date.now() - writeStart) / 1000;
    // Pushes still on their way: wait until all arrived or none has for 10 s (at most 60 s).
    for (let last = pushes, quietSince = Date.now(), stop = Date.now() + 60_000; Date.now() < stop && Date.now() - quietSince < 10_000 && pushes < expectedPushes; ) {
      await new Promise((r) => setTimeout(r, 250));
      if (pushes !== last) [last, quietSince] = [pushes, Date.now()];
    }
    loopDelay.disable();
    const cpuAfter = cpuOf([server.pid, process.pid, ...pgPids]);
    const statements = (await commits(stats)) - xactBefore;
    const sorted = [...latencies].sort((a, b) => a - b);
    const achieved = sent / writeSeconds;
    const p99 = percentile(sorted, 99);
    const perWrite = (seconds: number) => ((seconds * 1e6) / Math.max(1, sent)).toFixed(0);
    const perPush = (seconds: number) => ((seconds * 1e6) / Math.max(1, pushes)).toFixed(0);
    const serverCpu = cpuUsed(cpuBefore, cpuAfter, [server.pid]);
    const pgCpu = cpuUsed(cpuBefore, cpuAfter, pgPids);
    const benchCpu = cpuUsed(cpuBefore, cpuAfter, [process.pid]);
    console.log(`writes: ${sent} ok, ${failed} failed, ${achieved.toFixed(0)}/s achieved of ${RATE} asked; pushes received ${pushes} of ${expectedPushes} expected${firstFailure ? `; first failure: ${firstFailure}` : ''}`);
    console.log(`delivery latency ms: p50 ${percentile(sorted, 50)}, p99 ${p99}, max ${sorted[sorted.length - 1] ?? NaN}`);
    console.log(
      `CPU while writing (${writeSeconds.toFixed(1)} s): server ${(serverCpu / writeSeconds).toFixed(2)} cores = ${perWrite(serverCpu)} us/write = ${perPush(serverCpu)} us/push; ` +
        `PostgreSQL backends ${(pgCpu / writeSeconds).toFixed(2)} cores = ${perWrite(pgCpu)} us/write; bench ${(benchCpu / writeSeconds).toFixed(2)} cores = ${perWrite(benchCpu)} us/write; ` +
        `about ${(statements / Math.max(1, sent)).toFixed(2)} transactions per write; bench event-loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms`,
    );
    console.log(`in-memory registry: ${registryBytesPerSubscription(CONNECTIONS * SUBS, ROOMS).toFixed(0)} bytes of heap per subscription (measured in this process with the server's SubscriptionRegistry)`);
    console.log(`load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    const misses = [
      ...(failed > 0 ? [`${failed} writes failed`] : []),
      ...(pushes < expectedPushes ? [`${expectedPushes - pushes} pushes not received`] : []),
      ...(achieved < RATE * 0.98 ? [`writer reached ${achieved.toFixed(0)} of ${RATE} writes/s`] : []),
      ...(!(p99 <= 100) ? [`p99 ${p99} ms > 100 ms`] : []),
      ...(RATE < 500 || CONNECTIONS * SUBS < 10_000 ? [`a scaled-down run (${CONNECTIONS * SUBS} subscriptions, ${RATE} writes/s) says nothing of the target`] : []),
    ];
    // The clients live in this process: when its own loop lags, receipts are stamped late.
    const benchLagMs = loopDelay.percentile(99) / 1e6;
    if (benchLagMs > 20) console.log(`caution: this bench's own event loop lagged (p99 ${benchLagMs.toFixed(0)} ms, ${(benchCpu / writeSeconds).toFixed(2)} cores): receipts may be stamped late (a busy machine, or the load generator itself when its cores are high)`);
    console.log(misses.length === 0 ? `verdict: TARGET MET (delivery p99 ${p99} ms <= 100 ms at ${achieved.toFixed(0)} writes/s, 10,000 subscriptions, every push delivered)` : `verdict: TARGET NOT MET: ${misses.join('; ')}`);
  } finally {
    for (const ws of sockets) ws.terminate();
    agent.destroy();
    writer?.close();
    await server?.stop();
    await stats.end().catch(() => {});
    await dropSchema(url, schema);
  }
}

await main();
