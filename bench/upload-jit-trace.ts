/**
 * `tsx bench/upload-jit-trace.ts [--uploads 600] [--size 1024] [--node-args '--trace-opt --trace-deopt']`:
 * one Larder server (PGlite, built code) started with V8 tracing flags, its stdout kept whole in a
 * file, fed SDK-style uploads (fileTokens, PUT, fileCallback) one at a time; prints how many
 * trace lines of each kind came in each quarter of the uploads (after 50 unmeasured ones), so a
 * compile or deopt that keeps recurring in steady state shows up. docs/benchmarks.md, "Files".
 */
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEYS, freePort, REPO_ROOT, serverEnv } from './server-process.ts';

const { values: flags } = parseArgs({ options: { uploads: { type: 'string', default: '600' }, size: { type: 'string', default: '1024' }, 'node-args': { type: 'string', default: '--trace-opt --trace-deopt' }, root: { type: 'string' } } });
const agent = new Agent({ keepAlive: true });
const KEYS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };
function call(url: string, method: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let s = '';
      res.on('data', (c: Buffer) => (s += c.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: s }));
    });
    req.on('error', fail);
    req.end(body);
  });
}
const dir = await mkdtemp(join(tmpdir(), 'larder-jit-'));
const out = join(dir, 'trace.txt');
const port = await freePort();
const log = createWriteStream(out);
const child = spawn(process.execPath, [...flags['node-args']!.split(' ').filter(Boolean), 'bin/larder.js', 'serve'], { cwd: flags.root ?? REPO_ROOT, env: serverEnv({ kind: 'pglite', dataDir: join(dir, 'data') }, { LARDER_PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
child.stdout.pipe(log);
child.stderr.pipe(log);
const base = `http://127.0.0.1:${port}`;
for (;;) {
  const ok = await call(`${base}/health`, 'GET', {}, '').then((r) => r.status === 200, () => false);
  if (ok) break;
  await new Promise((r) => setTimeout(r, 300));
}
const body = Buffer.alloc(Number(flags.size), 7);
const upload = async () => {
  const t = JSON.parse((await call(`${base}/1.1/fileTokens`, 'POST', KEYS, JSON.stringify({ name: 'f.bin' }))).body) as { upload_url: string; token: string };
  const p = await call(t.upload_url, 'PUT', { 'content-type': 'application/octet-stream', 'content-length': String(body.length) }, body);
  if (p.status !== 200) throw new Error(`PUT ${p.status}`);
  await call(`${base}/1.1/fileCallback`, 'POST', KEYS, JSON.stringify({ token: t.token, result: true }));
};
const lines = () => readFileSync(out, 'utf8').split('\n');
/** CPU ms of the server's threads by start order (tid): main, then V8's platform workers, libuv's pool, the engine's worker. */
const threads = (): number[] => readdirSync(`/proc/${child.pid}/task`).map(Number).sort((a, b) => a - b).map((tid) => {
  const f = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
});
const groups = (t: number[]) => ({ main: t[0], v8: t[1] + t[2] + t[3] + t[4], pool: t[5] + t[6] + t[7] + t[8], rest: t.slice(9).reduce((a, b) => a + b, 0) });
for (let i = 0; i < 50; i++) await upload();
const marks = [lines().length];
const cpu = [groups(threads())];
const n = Number(flags.uploads);
for (let q = 0; q < 4; q++) {
  for (let i = 0; i < n / 4; i++) await upload();
  await new Promise((r) => setTimeout(r, 200));
  marks.push(lines().length);
  cpu.push(groups(threads()));
}
const all = lines();
const kind = (l: string) => (l.match(/^\[([a-z -]+?)(?: [-0-9x]|:|\])/)?.[1] ?? l.slice(0, 30));
for (let q = 0; q < 4; q++) {
  const counts = new Map<string, number>();
  for (const l of all.slice(marks[q], marks[q + 1])) counts.set(kind(l), (counts.get(kind(l)) ?? 0) + 1);
  const per = (k: 'main' | 'v8' | 'pool' | 'rest') => ((cpu[q + 1][k] - cpu[q][k]) / (n / 4)).toFixed(2);
  console.log(`quarter ${q + 1}: CPU ms per upload: main ${per('main')}, V8 helpers ${per('v8')}, pool ${per('pool')}, engine and the rest ${per('rest')}`);
  console.log(`quarter ${q + 1} (${n / 4} uploads): ${[...counts].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k} ${v}`).join(', ')}`);
}
console.log(`trace: ${out}`);
child.kill('SIGTERM');
