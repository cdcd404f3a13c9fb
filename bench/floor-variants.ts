/**
 * `tsx bench/floor-variants.ts --variant name=ENV=V,ENV=V ... [--mode small|big] [--width 1]
 * [--rounds 6] [--n 60] [--warm 500]`: several upload floors (bench/upload-floor.mjs, each started
 * with its variant's environment, e.g. `later=FLOOR_SMALL=stream-later`; `base=` for the default)
 * fed the same uploads by this process, taking turns upload by upload (`--width 1`) or block by
 * block (`--width 4`: blocks of 4 x width uploads, `--n` per round), and the page-cache copy of issue 9 ("disk",
 * median of 5 copies of 100 MB, each fsynced after its time was taken) and the 1 MB copy with an
 * fsync before its close ("disk+fsync") measured at the start and after every round. Per variant:
 * MB/s over all its uploads (token + PUT, the 1 MB file read from disk inside the time, as
 * bench/files.ts), its ratio to both yardsticks, the server's CPU per upload, the wall median, and
 * with FLOOR_TRACE=1 in its environment the floor's own step times (ms from the PUT's first byte).
 * `--mode big`: 100 MB uploads streamed from a file, one at a time, `--n` per round and variant.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { textRequest } from './http-text-request.ts';
import { freePort, REPO_ROOT } from './server-process.ts';
import { cpuOf, cpuUsed } from './process-cpu.ts';

const { values: flags } = parseArgs({
  options: {
    variant: { type: 'string', multiple: true, default: [] }, mode: { type: 'string', default: 'small' }, width: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '6' }, n: { type: 'string', default: '60' }, warm: { type: 'string', default: '500' },
  },
});
const MB = 1024 * 1024;
const BIG = flags.mode === 'big';
const SIZE = BIG ? 100 * MB : MB;
const WIDTH = Number(flags.width);
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const median = (xs: readonly number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

function send(url: string, method: string, headers: Record<string, string>, body?: Buffer | string | Readable): Promise<{ status: number; body: string }> {
  return textRequest(agent, url, method, headers, body);
}

interface Floor { name: string; url: string; pid: number; stop: () => void; ms: number; cpu: number; n: number; walls: number[]; traces: Record<string, number>[]; rounds: number[]; mark: { ms: number; n: number } }

async function startFloor(name: string, env: Record<string, string>, dir: string): Promise<Floor> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bench', 'upload-floor.mjs'), String(port), dir], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor ${name} exited (${code})`)));
    child.stdout!.once('data', () => resolve());
  });
  return { name, url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM'), ms: 0, cpu: 0, n: 0, walls: [], traces: [], rounds: [], mark: { ms: 0, n: 0 } };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'larder-floor-variants-'));
  const floors: Floor[] = [];
  try {
    const chunk = Buffer.alloc(MB);
    for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
    const small = join(dir, 'small.bin');
    await writeFile(small, chunk);
    const src = join(dir, 'src.bin');
    await writeFile(src, Buffer.concat(Array.from({ length: 100 }, () => chunk)));
    for (const v of flags.variant!) {
      const [name, ...rest] = v.split('=');
      const env: Record<string, string> = {};
      for (const kv of rest.join('=').split(',').filter(Boolean)) {
        const [k, val] = kv.split('=');
        env[k] = val;
      }
      floors.push(await startFloor(name, env, join(dir, name)));
    }
    /** The yardsticks: page-cache copies of 100 MB (fsynced after timing), and 20 1 MB copies with an fsync before the close. */
    const disk: number[] = [];
    const diskSync: number[] = [];
    const yardsticks = async (copies: number) => {
      for (let i = 0; i < copies; i++) {
        const dest = join(dir, 'copy.bin');
        await rm(dest, { force: true });
        const t = performance.now();
        await pipeline(createReadStream(src), createWriteStream(dest));
        disk.push(100 / ((performance.now() - t) / 1000));
        const fh = await open(dest, 'r+');
        await fh.sync();
        await fh.close();
      }
      const t = performance.now();
      for (let i = 0; i < 20; i++) await pipeline(createReadStream(small), createWriteStream(join(dir, `synced${i}.bin`), { flush: true }));
      diskSync.push(20 / ((performance.now() - t) / 1000));
    };
    const upload = async (f: Floor) => {
      const tk = await send(`${f.url}/1.1/fileTokens`, 'POST', { 'content-type': 'application/json' }, '{}');
      const url = (JSON.parse(tk.body) as { upload_url: string }).upload_url;
      const body = BIG ? createReadStream(src) : await readFile(small);
      const put = await send(url, 'PUT', { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) }, body);
      if (put.status !== 200) throw new Error(`PUT ${put.status} ${put.body}`);
    };
    for (const f of floors) for (let i = 0; i < (BIG ? 2 : Number(flags.warm)); i++) await upload(f);
    for (const f of floors) await send(`${f.url}/floor-trace`, 'GET', {});
    await yardsticks(5);
    const N = Number(flags.n);
    /** `count` uploads to `f`, `WIDTH` at a time, timed and counted. */
    const measure = async (f: Floor, count: number) => {
      const c0 = cpuOf([f.pid]);
      const t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: WIDTH }, async () => {
        while (next++ < count) {
          const t = performance.now();
          await upload(f);
          f.walls.push(performance.now() - t);
        }
      }));
      f.ms += performance.now() - t0;
      f.cpu += cpuUsed(c0, cpuOf([f.pid])) * 1000;
      f.n += count;
    };
    for (let r = 0; r < Number(flags.rounds); r++) {
      if (WIDTH === 1 && !BIG) {
        for (let i = 0; i < N; i++) for (let j = 0; j < floors.length; j++) await measure(floors[(i + j) % floors.length], 1);
      } else if (BIG) {
        for (let i = 0; i < N; i++) for (let j = 0; j < floors.length; j++) await measure(floors[(r + i + j) % floors.length], 1);
      } else {
        // Blocks of 4 x WIDTH uploads, the variants in turn (who goes first turns too).
        const per = 4 * WIDTH;
        for (let b = 0; b * per < N; b++) for (let j = 0; j < floors.length; j++) await measure(floors[(r + b + j) % floors.length], per);
      }
      for (const f of floors) {
        const tr = JSON.parse((await send(`${f.url}/floor-trace`, 'GET', {})).body) as Record<string, number>;
        if (tr.n) f.traces.push(tr);
      }
      for (const f of floors) {
        f.rounds.push((f.n - f.mark.n) * SIZE / MB / ((f.ms - f.mark.ms) / 1000));
        f.mark = { ms: f.ms, n: f.n };
      }
      await yardsticks(1);
      console.log(`round ${r + 1}: ${floors.map((f) => `${f.name} ${f.rounds[r].toFixed(0)} MB/s`).join(', ')}; load ${loadavg()[0].toFixed(1)}`);
    }
    const d = median(disk);
    const ds = median(diskSync);
    console.log(`mode ${flags.mode}, width ${WIDTH}; disk (100 MB page-cache copy) ${d.toFixed(0)} MB/s (median of ${disk.length}: ${Math.min(...disk).toFixed(0)}-${Math.max(...disk).toFixed(0)}); disk+fsync (1 MB files) ${ds.toFixed(0)} MB/s (median of ${diskSync.length}: ${Math.min(...diskSync).toFixed(0)}-${Math.max(...diskSync).toFixed(0)}); load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (const f of floors) {
      const rate = f.n * SIZE / MB / (f.ms / 1000);
      const tr = f.traces.length ? Object.keys(f.traces[0]).filter((k) => k !== 'n').map((k) => `${k} ${median(f.traces.map((t) => t[k])).toFixed(2)}`).join(', ') : '';
      const rm = median(f.rounds);
      const above = f.rounds.filter((x, r) => x > floors[0].rounds[r]).length;
      console.log(`${f.name}: ${rate.toFixed(0)} MB/s over all (median of rounds ${rm.toFixed(0)} = ${(rm / d).toFixed(2)} of disk, ${(rm / ds).toFixed(2)} of disk+fsync; above ${floors[0].name} in ${above} of ${f.rounds.length} rounds); wall median ${median(f.walls).toFixed(2)} ms; server CPU ${(f.cpu / f.n).toFixed(2)} ms/upload${tr ? `; steps (ms from the PUT's first byte, median of round medians): ${tr}` : ''}`);
    }
  } finally {
    for (const f of floors) f.stop();
    await new Promise((r) => setTimeout(r, 300));
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
