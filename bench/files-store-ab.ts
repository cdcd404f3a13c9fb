/**
 * `tsx bench/files-store-ab.ts [rounds] [files] [--a <checkout>] [--b <checkout>]`: the local disk
 * store of two checkouts side by side in ONE server process (PUT /a/* goes to checkout a's
 * LocalDiskStore.write, PUT /b/* to checkout b's), fed over loopback by a child client that PUTs
 * 1 MiB bodies one at a time, a and b alternating per round. Prints the server's CPU per file
 * (all threads, from /proc) per round and the medians: a loaded machine moves both alike. Only
 * the store and the HTTP body stream are measured (no database, no routing, no Fastify).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

interface Store {
  write(location: string, body: Readable, opts: { maxBytes: number; contentType: string }): Promise<{ size: number }>;
}

const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

async function client(port: number, rounds: number, n: number, serverPid: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const data = Buffer.alloc(1 << 20);
  for (let i = 0; i + 4 <= data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
  const put = (path: string) =>
    new Promise<void>((done, fail) => {
      const req = request({ port, host: '127.0.0.1', path, method: 'PUT', agent, headers: { 'content-length': String(data.length) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`PUT ${res.statusCode}`))));
      });
      req.on('error', fail);
      req.end(data);
    });
  const cpuMs = () => {
    const stat = readFileSync(`/proc/${serverPid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const cpu: Record<string, number[]> = { a: [], b: [] };
  const wall: Record<string, number[]> = { a: [], b: [] };
  // Unmeasured: both paths compiled and warm first.
  for (let i = 0; i < 30; i++) {
    await put('/a/warm');
    await put('/b/warm');
  }
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 ? ['b', 'a'] : ['a', 'b']) {
      const c0 = cpuMs();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await put(`/${k}/${i}`);
      cpu[k].push((cpuMs() - c0) / n);
      wall[k].push((performance.now() - t0) / n);
    }
  }
  for (const k of ['a', 'b']) console.log(`${k}: server CPU per file median ${median(cpu[k]).toFixed(2)} ms [${cpu[k].map((v) => v.toFixed(2)).join(' ')}], wall median ${median(wall[k]).toFixed(2)} ms`);
  console.log(`b/a CPU per round: ${cpu.a.map((v, i) => (cpu.b[i] / v).toFixed(2)).join(' ')}; load average ${loadavg()[0].toFixed(1)}`);
}

async function server(): Promise<void> {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const here = fileURLToPath(new URL('..', import.meta.url));
  const a = flag('--a') ?? here;
  const b = flag('--b') ?? here;
  const [rounds, files] = process.argv.slice(2).filter((x) => /^\d+$/.test(x));
  console.log(`a = ${a}, b = ${b}`);
  const dir = await mkdtemp(join(tmpdir(), 'larder-store-ab-'));
  const load = async (root: string, sub: string): Promise<Store> => (await import(join(root, 'src/modules/files/local-disk-store.ts'))).LocalDiskStore.open(join(dir, sub));
  const stores = { a: await load(a, 'a'), b: await load(b, 'b') };
  let seq = 0;
  const http = createServer((req, res) => {
    const store = req.url?.startsWith('/a/') ? stores.a : stores.b;
    // As files-http.ts hands a body to the store: through a pass-through.
    const pass = new PassThrough();
    req.pipe(pass);
    const location = `${(seq++).toString(36)}${'x'.repeat(24)}`.slice(0, 24);
    store.write(location, pass, { maxBytes: 1 << 30, contentType: 'application/octet-stream' }).then(
      (s) => res.end(JSON.stringify(s)),
      (err: Error) => {
        res.statusCode = 500;
        res.end(String(err));
      },
    );
  });
  http.listen(0, '127.0.0.1', () => {
    const port = (http.address() as { port: number }).port;
    const child = fork(fileURLToPath(import.meta.url), ['client', String(port), rounds ?? '8', files ?? '50', String(process.pid)], { execArgv: ['--import', 'tsx'] });
    child.on('exit', () => {
      http.close();
      void rm(dir, { recursive: true, force: true }).then(() => process.exit(0));
    });
  });
}

if (process.argv[2] === 'client') void client(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6]));
else void server();
