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
 *    receipt of its push: p50, p99, max, and the writes per second actually achieved.
 *
 * Flags: --connections N (1000), --subs-per-connection N (10), --rooms N (1000), --rate N (500),
 * --duration S (20).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { decodeFrame, encodeFrame } from '../src/modules/livequery/protocol/frame-codec.ts';
import { CMD } from '../src/modules/livequery/protocol/messages.ts';
import { SubscriptionRegistry } from '../src/modules/livequery/store/subscription-registry.ts';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, redact } from './bench-database.ts';
import { rssMb } from './memory-sampler.ts';
import { BENCH_KEYS, startServer, type ServerProcess } from './server-process.ts';

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '1000' },
    'subs-per-connection': { type: 'string', default: '10' },
    rooms: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '20' },
  },
});
const CONNECTIONS = Number(flags.connections);
const SUBS = Number(flags['subs-per-connection']);
const ROOMS = Number(flags.rooms);
const RATE = Number(flags.rate);
const DURATION = Number(flags.duration);
const HEADERS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

async function post(base: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(base + path, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return res.json();
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

async function settle(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 3000));
  return rssMb(pid) ?? NaN;
}

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const schema = freshSchemaName();
  let server: ServerProcess | undefined;
  const sockets: WebSocket[] = [];
  try {
    server = await startServer({ kind: 'postgres', url, schema }, 1, { env: { LARDER_POOL_SIZE: '16' } });
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
      ws.on('message', (data: Buffer, isBinary) => {
        const m = decodeFrame('protobuf2', data, isBinary);
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
    const rssConnected = await settle(server.pid);
    const started = Date.now();
    await pool(CONNECTIONS * SUBS, 16, async (k) => {
      const conn = Math.floor(k / SUBS);
      const room = (conn * 7 + (k % SUBS) * 101) % ROOMS;
      await post(base, '/1.1/LiveQuery/subscribe', { query: { className: 'BenchRoom', where: { room: `r${room}` } }, id: `bench-${conn}` });
    });
    const subscribeSeconds = (Date.now() - started) / 1000;
    const rssSubscribed = await settle(server.pid);
    console.log(`subscribed ${CONNECTIONS * SUBS} in ${subscribeSeconds.toFixed(1)} s; server RSS ${rssConnected.toFixed(1)} MB -> ${rssSubscribed.toFixed(1)} MB = ${(((rssSubscribed - rssConnected) * 1024 * 1024) / (CONNECTIONS * SUBS)).toFixed(0)} bytes per subscription`);

    // Writes at a fixed rate: every 10 ms, RATE/100 writes; each carries its send time.
    let sent = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    const inFlight = new Set<Promise<void>>();
    const perTick = RATE / 100;
    let owed = 0;
    const end = Date.now() + DURATION * 1000;
    while (Date.now() < end) {
      owed += perTick;
      while (owed >= 1) {
        owed -= 1;
        const p = post(base, '/1.1/classes/BenchRoom', { room: `r${Math.floor(Math.random() * ROOMS)}`, sentAt: Date.now() }).then(
          () => void sent++,
          (err: unknown) => {
            failed++;
            firstFailure ??= err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
          },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(inFlight);
    // Pushes still on their way: wait until none has arrived for 3 s (at most 60 s).
    for (let last = pushes, quietSince = Date.now(), stop = Date.now() + 60_000; Date.now() < stop && Date.now() - quietSince < 3000; ) {
      await new Promise((r) => setTimeout(r, 250));
      if (pushes !== last) [last, quietSince] = [pushes, Date.now()];
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(`writes: ${sent} ok, ${failed} failed, ${(sent / DURATION).toFixed(0)}/s achieved; pushes received ${pushes}${firstFailure ? `; first failure: ${firstFailure}` : ''}`);
    console.log(`delivery latency ms: p50 ${percentile(sorted, 50)}, p99 ${percentile(sorted, 99)}, max ${sorted[sorted.length - 1] ?? NaN} (target p99 <= 100 ms at 500 writes/s)`);
    console.log(`in-memory registry: ${registryBytesPerSubscription(CONNECTIONS * SUBS, ROOMS).toFixed(0)} bytes of heap per subscription (measured in this process with the server's SubscriptionRegistry)`);
    console.log(`load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  } finally {
    for (const ws of sockets) ws.terminate();
    await server?.stop();
    await dropSchema(url, schema);
  }
}

await main();
