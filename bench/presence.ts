/**
 * `npm run bench:presence`: the friends service under load, on one Larder process with
 * PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/larder_bench; a
 * fresh schema per run, dropped afterwards).
 *
 * 1. 10,000 concurrent friends WebSocket connections (one per user): server RSS per idle connection.
 * 2. One presence change (POST rich-presence/users/me) fanned out to 1,000 online friends:
 *    delivery latency from sending the request to each friend's receipt, p50/p99/max, over
 *    several stars (each may change once per 30 s, so every round uses another star).
 * 3. GET rich-presence/users with 100 ids (friends of the caller): requests per second.
 *
 * Flags: --connections N (10000), --friends N (1000), --rounds N (10), --duration S (10),
 * --write-docs (replace the "Presence" section of docs/benchmarks.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, redact } from './bench-database.ts';
import { runHttpLoad } from './http-load.ts';
import { settledRssMb } from './memory-sampler.ts';
import { benchUsers, seedPresenceData, type BenchUser } from './presence-setup.ts';
import { BENCH_KEYS, startServer, type ServerProcess } from './server-process.ts';

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '10000' },
    friends: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
    'write-docs': { type: 'boolean', default: false },
  },
});
const CONNECTIONS = Number(flags.connections);
const FRIENDS = Number(flags.friends);
const ROUNDS = Number(flags.rounds);
const DURATION = Number(flags.duration);

const MASTER = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': `${BENCH_KEYS.masterKey},master`, 'content-type': 'application/json' };

async function master(base: string, method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(base + path, { method, headers: MASTER, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

/** Opens one WebSocket per user, `parallel` at a time; `onMessage` sees every message. */
async function connectAll(base: string, users: readonly BenchUser[], parallel: number, onMessage: (user: number, text: string) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = new Array(users.length);
  let next = 0;
  const url = base.replace(/^http/, 'ws') + '/ws/leancloud/v1';
  const worker = async () => {
    while (next < users.length) {
      const i = next++;
      sockets[i] = await new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url, { headers: { 'X-LC-Id': BENCH_KEYS.appId, 'X-LC-Key': BENCH_KEYS.appKey, 'X-LC-Session': users[i].session }, perMessageDeflate: false });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
        ws.on('message', (d) => onMessage(i, d.toString()));
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return sockets;
}

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const schema = freshSchemaName();
  const stars = ROUNDS;
  const users = benchUsers(Math.max(CONNECTIONS, stars + FRIENDS));
  const starUsers = users.slice(0, stars);
  const friendUsers = users.slice(stars, stars + FRIENDS);
  console.log(`presence bench: ${CONNECTIONS} connections, ${FRIENDS} friends x ${ROUNDS} rounds, PostgreSQL ${redact(url)} schema ${schema}`);
  let server: ServerProcess | undefined;
  const sockets: WebSocket[] = [];
  try {
    server = await startServer({ kind: 'postgres', url, schema }, 1);
    const base = server.url;
    await master(base, 'PUT', '/1.1/larder/settings', { richPresenceSync: true, friendModel: 'mutual' });
    await master(base, 'POST', '/friend/v2/rich-presence/config/base-info', { enableRichMsg: true, enableOnlineMsg: true, richPresenceFields: [{ key: 'display', type: 'token' }, { key: 'score', type: 'variable' }] });
    await master(base, 'POST', '/friend/v1/rich-presence/config/lang-info', { action: 'save', config: [{ key: 'display', lang: 'en_US', content: { '#playing': 'Playing, %score% points' } }] });
    // Creates the friend classes and their indexes through the API, then fills them directly.
    await master(base, 'POST', '/1.1/classes/_Followee', { user: { __type: 'Pointer', className: '_User', objectId: 'x' }, followee: { __type: 'Pointer', className: '_User', objectId: 'y' }, friendStatus: false });
    await seedPresenceData(url, schema, users, starUsers, friendUsers);

    const pid = server.pid;
    const before = await settledRssMb(pid);
    const received = new Map<string, number[]>();
    let expecting: { star: string; started: number } | undefined;
    const t0 = Date.now();
    sockets.push(
      ...(await connectAll(base, users.slice(0, CONNECTIONS), 100, (_i, text) => {
        if (!expecting || !text.includes('rich_presence/update')) return;
        const m = JSON.parse(text) as { body?: { userId?: string } };
        if (m.body?.userId !== expecting.star) return;
        let list = received.get(expecting.star);
        if (!list) received.set(expecting.star, (list = []));
        list.push(performance.now() - expecting.started);
      })),
    );
    const connectSec = (Date.now() - t0) / 1000;
    const after = await settledRssMb(pid);
    const perConnKb = ((after - before) * 1024) / CONNECTIONS;
    console.log(`connected ${CONNECTIONS} in ${connectSec.toFixed(1)} s; server RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB (${perConnKb.toFixed(1)} KB per connection)`);

    const latencies: number[] = [];
    for (const star of starUsers) {
      expecting = { star: star.id, started: performance.now() };
      const res = await fetch(`${base}/friend/v1/rich-presence/users/me`, {
        method: 'POST',
        headers: { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'x-lc-session': star.session, 'content-type': 'application/json' },
        body: JSON.stringify({ config: [{ key: 'display', value: '#playing' }, { key: 'score', value: '42' }] }),
      });
      if (!res.ok) throw new Error(`presence change: ${res.status} ${await res.text()}`);
      const deadline = Date.now() + 10_000;
      while ((received.get(star.id)?.length ?? 0) < FRIENDS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const got = received.get(star.id) ?? [];
      if (got.length < FRIENDS) throw new Error(`round ${star.id}: ${got.length} of ${FRIENDS} friends notified within 10 s`);
      latencies.push(...got);
      await new Promise((r) => setTimeout(r, 200));
    }
    expecting = undefined;
    latencies.sort((a, b) => a - b);
    const fan = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] };
    console.log(`fan-out to ${FRIENDS} friends: p50 ${fan.p50.toFixed(1)} ms, p99 ${fan.p99.toFixed(1)} ms, max ${fan.max.toFixed(1)} ms (${latencies.length} deliveries)`);

    const ids = friendUsers.slice(0, 100).map((u) => u.id).join(',');
    const sample = (await apiCallAs(base, starUsers[0].session, `/friend/v1/rich-presence/users?ids=${ids}`)) as { results: { online: boolean }[] };
    if (sample.results.length !== 100 || !sample.results.every((r) => r.online)) throw new Error('GET rich-presence/users did not show 100 online friends');
    const read = await runHttpLoad(base, { method: 'GET', path: () => `/friend/v1/rich-presence/users?ids=${ids}`, headers: () => ({ 'x-lc-session': starUsers[0].session }) }, { durationSec: DURATION }, 10);
    if (read.non2xx || read.errors) throw new Error(`GET rich-presence/users: ${read.non2xx} non-2xx, ${read.errors} errors`);
    console.log(`GET rich-presence/users (100 ids): ${read.perSec.toFixed(0)} req/s, p50 ${read.p50Ms} ms, p99 ${read.p99Ms} ms`);

    const table = [
      '| measure | result | target |',
      '|---|---|---|',
      `| concurrent WebSocket connections (one process) | ${CONNECTIONS}, opened in ${connectSec.toFixed(1)} s | 10,000 |`,
      `| server memory per idle connection (RSS delta / connections) | ${perConnKb.toFixed(1)} KB (RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB) | < 20 KB |`,
      `| presence change fanned out to ${FRIENDS} online friends, delivery latency | p50 ${fan.p50.toFixed(1)} ms, p99 ${fan.p99.toFixed(1)} ms, max ${fan.max.toFixed(1)} ms (${latencies.length} deliveries, ${ROUNDS} changes) | p99 <= 200 ms |`,
      `| GET rich-presence/users, 100 ids, 10 connections | ${read.perSec.toFixed(0)} req/s, p50 ${read.p50Ms} ms, p99 ${read.p99Ms} ms | |`,
      `| machine load (1-minute average at the end; 2 cores) | ${loadavg()[0].toFixed(1)} | |`,
    ];
    console.log(`\n${table.join('\n')}\n`);
    if (flags['write-docs']) writeDocs(table);
  } finally {
    for (const s of sockets) s?.terminate();
    await server?.stop();
    await dropSchema(url, schema).catch(() => {});
  }
}

async function apiCallAs(base: string, session: string, path: string): Promise<unknown> {
  const res = await fetch(base + path, { headers: { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'x-lc-session': session } });
  if (!res.ok) throw new Error(`GET ${path.slice(0, 80)}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Replaces (or appends) the "## Presence" section of docs/benchmarks.md; other sections are untouched. */
function writeDocs(table: readonly string[]): void {
  const file = new URL('../docs/benchmarks.md', import.meta.url);
  const doc = readFileSync(file, 'utf8');
  const section = [
    '## Presence',
    '',
    `Produced by \`npm run bench:presence -- --write-docs\` (bench/presence.ts) on ${new Date().toISOString().slice(0, 10)}: one Larder`,
    'process on PostgreSQL, the clients in the bench process on the same 2-core machine (so client work',
    'counts against the server). Latency of the fan-out runs from sending the POST to each friend\'s',
    'receipt of `friendship/rich_presence/update`, so it includes the request, the write and the friend lookup.',
    '',
    ...table,
    '',
  ].join('\n');
  const start = doc.indexOf('\n## Presence\n');
  let out: string;
  if (start < 0) out = `${doc.trimEnd()}\n\n${section}`;
  else {
    const rest = doc.indexOf('\n## ', start + 1);
    out = doc.slice(0, start + 1) + section + (rest < 0 ? '' : doc.slice(rest));
  }
  writeFileSync(file, out);
  console.log('docs/benchmarks.md: Presence section written');
}


main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
