/**
 * `tsx bench/files-big-probe.ts --a <checkout> [--b <checkout>] [--floor] [--rounds 6] [--mb 100]`:
 * 100 MB uploads only (fileTokens + PUT streamed from a file in the page cache), the sides taking
 * turns upload by upload. Per upload: wall, the server's CPU by thread group (main, V8 helpers,
 * libuv pool, other), and this client's own CPU (it shares the machine's cores with the server).
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { textRequest } from './http-text-request.ts';
import { BENCH_KEYS, REPO_ROOT, startServer, type ServerProcess } from './server-process.ts';
import { threadCpu } from './process-cpu.ts';
import { startUploadFloor } from './upload-floor-process.ts';

const { values: flags } = parseArgs({ options: { a: { type: 'string' }, b: { type: 'string' }, floor: { type: 'boolean', default: false }, rounds: { type: 'string', default: '6' }, mb: { type: 'string', default: '100' } } });
const MB = 1024 * 1024;
const SIZE = Number(flags.mb) * MB;
const KEYS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

function call(url: string, method: string, headers: Record<string, string>, body?: string | Readable): Promise<{ status: number; body: string }> {
  return textRequest(agent, url, method, headers, body);
}

/**
 * Server CPU ms by thread, in the order threads were started (tid): [0] main, then (Node 20 on
 * Linux) one idle thread, V8's four platform workers, one idle thread, libuv's four pool threads,
 * then the embedded engine's worker and any later ones. Grouped as main, V8 helpers (1-5), pool (6-10), later (11-).
 */
function groups(pid: number): number[] {
  const ts = threadCpu(pid).sort((x, y) => Number(x.tid) - Number(y.tid));
  const out = [0, 0, 0, 0];
  ts.forEach((t, i) => {
    const k = i === 0 ? 0 : i <= 5 ? 1 : i <= 10 ? 2 : 3;
    out[k] += t.seconds * 1000;
  });
  return out;
}

interface Side { name: string; server: ServerProcess; rows: { wall: number; cpu: number[]; client: number }[] }

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'larder-big-probe-'));
  const src = join(dir, 'src.bin');
  const chunk = Buffer.alloc(MB);
  for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
  await writeFile(src, Buffer.concat(Array.from({ length: SIZE / MB }, () => chunk)));
  const sides: Side[] = [];
  try {
    for (const [name, root] of [['a', flags.a], ['b', flags.b]] as const) {
      if (!root) continue;
      sides.push({ name, rows: [], server: await startServer({ kind: 'pglite', dataDir: join(dir, `data-${name}`) }, 1, { root, env: { LARDER_FILE_MAX_BYTES: String(SIZE * 2) } }) });
    }
    if (flags.floor) sides.push({ name: 'floor', rows: [], server: await startUploadFloor(join(dir, 'floor')) });
    const upload = async (s: Side, measure: boolean) => {
      const tk = await call(`${s.server.url}/1.1/fileTokens`, 'POST', KEYS, JSON.stringify({ name: 'big.bin', metaData: { size: SIZE } }));
      const t = JSON.parse(tk.body) as { upload_url: string };
      const c0 = groups(s.server.pid);
      const u0 = process.cpuUsage();
      const w0 = performance.now();
      const put = await call(t.upload_url, 'PUT', { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) }, createReadStream(src));
      const wall = performance.now() - w0;
      const u = process.cpuUsage(u0);
      const c1 = groups(s.server.pid);
      if (put.status !== 200) throw new Error(`PUT ${put.status} ${put.body}`);
      if (measure) s.rows.push({ wall, cpu: c1.map((v, k) => v - c0[k]), client: (u.user + u.system) / 1000 });
    };
    for (const s of sides) for (let i = 0; i < 3; i++) await upload(s, false);
    const rounds = Number(flags.rounds);
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < sides.length; j++) {
        const s = sides[(r + j) % sides.length];
        await upload(s, true);
        const x = s.rows[s.rows.length - 1];
        console.log(`round ${r + 1} ${s.name}: ${(SIZE / MB / (x.wall / 1000)).toFixed(0)} MB/s, ${x.wall.toFixed(0)} ms; server CPU main ${x.cpu[0].toFixed(0)}, V8 helpers ${x.cpu[1].toFixed(0)}, pool ${x.cpu[2].toFixed(0)}, other ${x.cpu[3].toFixed(0)} ms; client ${x.client.toFixed(0)} ms; load ${loadavg()[0].toFixed(1)}`);
      }
    }
    for (const s of sides) {
      const m = (f: (x: Side['rows'][number]) => number) => median(s.rows.map(f)).toFixed(0);
      console.log(`${s.name}: median ${(SIZE / MB / (median(s.rows.map((x) => x.wall)) / 1000)).toFixed(0)} MB/s (${m((x) => x.wall)} ms) [${s.rows.map((x) => (SIZE / MB / (x.wall / 1000)).toFixed(0)).join(' ')}]; main ${m((x) => x.cpu[0])}, helpers ${m((x) => x.cpu[1])}, pool ${m((x) => x.cpu[2])}, other ${m((x) => x.cpu[3])} ms; client ${m((x) => x.client)} ms`);
    }
  } finally {
    for (const s of sides) await s.server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
