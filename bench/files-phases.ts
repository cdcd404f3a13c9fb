/**
 * `tsx bench/files-phases.ts [--n 40] [--root <checkout>] [--size bytes] [--body file|buffer]`:
 * where the time of a small file goes. One Larder process (PGlite, local disk) as a child; per
 * file (1 MiB by default), one at a time, after 5 unmeasured ones: POST /1.1/fileTokens, PUT
 * upload_url (the body streamed from a file, or one buffer), POST /1.1/fileCallback, GET url.
 * Prints per phase the median and fastest client wall time and the server's CPU per file (from
 * /proc, summed over all files), and the server's CPU per thread (main, V8 helpers, libuv pool,
 * the embedded engine's worker), so that two checkouts (--root) can be compared in alternating
 * runs on a loaded machine, where CPU moves much less than wall time.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { request, Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuOf, cpuUsed, threadCpu } from './process-cpu.ts';
import { BENCH_KEYS, startServer } from './server-process.ts';

const { values: flags } = parseArgs({ options: { n: { type: 'string', default: '40' }, root: { type: 'string' }, size: { type: 'string', default: '1048576' }, body: { type: 'string', default: 'file' } } });
const N = Number(flags.n);
const SIZE = Number(flags.size);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function call(url: string, method: string, headers: Record<string, string>, body?: Buffer | string | Readable): Promise<{ status: number; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
    });
    req.on('error', fail);
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}

/** CPU seconds per thread of a process, keyed by thread id and name. */
function threadsByName(pid: number): Map<string, number> {
  return new Map(threadCpu(pid).map((t) => [`${t.tid} ${t.name}`, t.seconds]));
}

const KEYS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };
const PHASES = ['token', 'put', 'callback', 'get'] as const;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'larder-files-phases-'));
  const server = await startServer({ kind: 'pglite', dataDir: join(dir, 'data') }, 1, { root: flags.root });
  const data = Buffer.alloc(SIZE);
  for (let i = 0; i + 4 <= data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
  const src = join(dir, 'src.bin');
  await writeFile(src, data);
  const wall: Record<string, number[]> = Object.fromEntries(PHASES.map((p) => [p, []]));
  const cpu: Record<string, number> = Object.fromEntries(PHASES.map((p) => [p, 0]));
  try {
    const round = async (measure: boolean) => {
      const timed = async <T>(phase: (typeof PHASES)[number], f: () => Promise<T>): Promise<T> => {
        const c0 = cpuOf([server.pid]);
        const t0 = performance.now();
        const r = await f();
        if (measure) {
          wall[phase].push(performance.now() - t0);
          cpu[phase] += cpuUsed(c0, cpuOf([server.pid]));
        }
        return r;
      };
      const tk = await timed('token', () => call(`${server.url}/1.1/fileTokens`, 'POST', KEYS, JSON.stringify({ name: 'a.bin', metaData: { size: SIZE } })));
      const t = JSON.parse(tk.body.toString()) as { upload_url: string; url: string; token: string };
      const put = await timed('put', () => call(t.upload_url, 'PUT', { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) }, flags.body === 'file' ? createReadStream(src) : data));
      if (put.status !== 200) throw new Error(`PUT ${put.status} ${put.body.toString()}`);
      await timed('callback', () => call(`${server.url}/1.1/fileCallback`, 'POST', KEYS, JSON.stringify({ token: t.token, result: true })));
      const got = await timed('get', () => call(t.url, 'GET', {}));
      if (got.body.length !== SIZE) throw new Error(`GET ${got.status} ${got.body.length}`);
    };
    for (let i = 0; i < 5; i++) await round(false);
    const threads0 = threadsByName(server.pid);
    for (let i = 0; i < N; i++) await round(true);
    const threads1 = threadsByName(server.pid);
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${N} files of ${SIZE} bytes; root ${flags.root ?? '.'}, PUT body from ${flags.body}`);
    const used = [...threads1].map(([k, v]) => [k, v - (threads0.get(k) ?? 0)] as const).filter(([, v]) => v > 0);
    console.log(`server threads (tid; main = ${server.pid}), CPU ms per file, all phases: ${used.map(([k, v]) => `${k.split(' ')[0]} ${((v / N) * 1000).toFixed(1)}`).join(', ')}`);
    for (const p of PHASES) console.log(`${p.padEnd(9)} wall median ${med(wall[p]).toFixed(1).padStart(6)} ms, min ${Math.min(...wall[p]).toFixed(1).padStart(6)} ms; server CPU ${((cpu[p] / N) * 1000).toFixed(1).padStart(5)} ms/file`);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
