/**
 * `npm run bench:files`: the file service over loopback, against one Larder process (PGlite,
 * local disk backend) started as a child process.
 *
 * 1. Raw disk copy speed (stream copy in this process, page cache, no fsync): of one 100 MB file
 *    (the yardstick of issue 9: the median of `--copies` copies at the start, and again of the
 *    copies taken between the 100 MB uploads, each printed with its spread), and of 1 MB files
 *    one at a time (open to close, per file); and, for comparison, both again with an fsync
 *    before each close, as an upload does.
 * 2. Upload (fileTokens + PUT upload_url) and download (GET url) MB/s of 1 MB files, one at a
 *    time and 4 at a time, after 2,000 unmeasured ones per server (a long-running server: the
 *    JIT and the engine's WASM keep compiling over the first few thousand), and of 100 MB files
 *    (`--big` rounds, each a page-cache copy, Larder's upload and download and the floor's upload,
 *    so that the ratios compare figures taken side by side in time; medians and spreads); the
 *    server's CPU per 1 MB file next to them. The
 *    1 MB uploads are also sent to the upload floor (bench/upload-floor.mjs, a plain Node server
 *    doing the same durable upload without a database) with the same client and files, Larder
 *    and the floor taking turns in `--blocks` blocks: its MB/s, ratios and CPU per file, and
 *    Larder/floor, on the same lines. Every row gives its ratio to "disk" (the 100 MB page-cache
 *    copy, issue 9's yardstick) and, for uploads, to "disk+fsync" (the copy of files of the same
 *    size with an fsync before each close, as an upload does).
 * 3. Peak server RSS above idle while one 1 GB file is uploaded (RSS sampled every 50 ms).
 * 4. Thumbnails per second from a 2000x1500 JPEG (every request a new size: no cache hits).
 *
 * The client is node:http with keep-alive (as the SDKs' HTTP stacks), not fetch: undici's web
 * streams cost this process about 1.5 ms more CPU per 1 MB download, which on a 2-core machine
 * is taken from the server being measured. A 1 MB file is read from disk and PUT as one buffer
 * (as the SDKs send small files), inside the measured time; the 100 MB file is streamed.
 *
 * Flags: --small N (1 MB files per size and side, default 60), --blocks N (turns of Larder and
 * the floor per width, default 15: 4 files a turn), --thumbs N (default 20), --gb N (size of the big
 * upload in MB, default 1024), --warm N (unmeasured 1 MB uploads to each server first, default 2000; 20 shows a new process),
 * --copies N (100 MB page-cache copies at the start, default 5), --big N (100 MB rounds, default 5).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { rssMb } from './memory-sampler.ts';
import { cpuOf, cpuUsed } from './process-cpu.ts';
import { BENCH_KEYS, startServer } from './server-process.ts';
import { startUploadFloor } from './upload-floor-process.ts';

const { values: flags } = parseArgs({
  options: {
    small: { type: 'string', default: '60' },
    blocks: { type: 'string', default: '15' },
    thumbs: { type: 'string', default: '20' },
    gb: { type: 'string', default: '1024' },
    warm: { type: 'string', default: '2000' },
    copies: { type: 'string', default: '5' },
    big: { type: 'string', default: '5' },
  },
});
const SMALL = Number(flags.small);
const BLOCKS = Math.max(1, Number(flags.blocks));
const THUMBS = Number(flags.thumbs);
const BIG_MB = Number(flags.gb);
const COPIES = Math.max(1, Number(flags.copies));
const BIG_ROUNDS = Math.max(1, Number(flags.big));
const MB = 1024 * 1024;
const KEYS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One request; the answer's body is counted, and kept only when `keep`. */
function send(url: string, method: string, headers: Record<string, string>, body: Buffer | string | Readable | undefined, keep: boolean): Promise<{ status: number; bytes: number; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (keep) parts.push(c);
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, bytes, body: Buffer.concat(parts) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}

async function token(base: string, name: string, size: number): Promise<{ upload_url: string; url: string }> {
  const res = await send(`${base}/1.1/fileTokens`, 'POST', KEYS, JSON.stringify({ name, metaData: { size } }), true);
  if (res.status !== 200) throw new Error(`fileTokens: ${res.status} ${res.body.toString()}`);
  return JSON.parse(res.body.toString()) as { upload_url: string; url: string };
}

/** PUTs a buffer, or a stream (no buffering in this process). */
async function put(url: string, body: Buffer | Readable, length: number): Promise<void> {
  const res = await send(url, 'PUT', { 'content-type': 'application/octet-stream', 'content-length': String(length) }, body, true);
  if (res.status !== 200) throw new Error(`PUT ${res.status} ${res.body.toString()}`);
}

async function download(url: string): Promise<number> {
  const res = await send(url, 'GET', {}, undefined, false);
  if (res.status !== 200) throw new Error(`GET ${res.status}`);
  return res.bytes;
}

/** Runs f(0..n-1), `width` at a time. */
async function inParallel(n: number, width: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await f(next++);
  }));
}

function repeated(chunk: Buffer, times: number): Readable {
  return Readable.from((function* () {
    for (let i = 0; i < times; i++) yield chunk;
  })());
}

const mbps = (bytes: number, ms: number) => (bytes / MB / (ms / 1000)).toFixed(0);
const median = (xs: readonly number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
/** "n: min-max MB/s", the spread of a set of rates. */
const spread = (xs: readonly number[]) => `${xs.length}: ${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} MB/s`;

/**
 * MB/s of `n` page-cache copies of the 100 MB file `src` to `dest` (no fsync: issue 9's "disk"),
 * one after the other. Each copy is fsynced after its time was taken: its 100 MB of dirty pages
 * would otherwise be written back while the next measurement runs (on ext4 an upload's fsync can
 * wait for them), so that measurement would pay for the copy's disk work.
 */
async function diskCopies(src: string, dest: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    await rm(dest, { force: true });
    const t = performance.now();
    await pipeline(createReadStream(src), createWriteStream(dest));
    out.push(100 / ((performance.now() - t) / 1000));
    const fh = await open(dest, 'r+');
    await fh.sync();
    await fh.close();
  }
  return out;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'larder-bench-files-'));
  const server = await startServer({ kind: 'pglite', dataDir: join(dir, 'data') }, 1, { env: { LARDER_FILE_MAX_BYTES: String((BIG_MB + 1) * MB) } });
  try {
    const base = server.url;
    const rssStart = rssMb(server.pid) ?? NaN;
    const chunk = Buffer.alloc(MB);
    for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
    const src = join(dir, 'src.bin');
    await pipeline(repeated(chunk, 100), createWriteStream(src));
    // The yardstick moves by a factor of 1.5 within minutes on a shared machine: it is the median
    // of --copies copies here, and again of as many taken between the 100 MB uploads below; each
    // batch's median and spread are printed, and the 100 MB rows are judged against their own batch.
    const startCopies = await diskCopies(src, join(dir, 'copy.bin'), COPIES);
    const diskMbps = median(startCopies);
    let t = performance.now();
    console.log(`machine: load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

    const small = join(dir, 'small.bin');
    await writeFile(small, chunk);
    t = performance.now();
    for (let i = 0; i < SMALL; i++) await pipeline(createReadStream(small), createWriteStream(join(dir, `copy${i}.bin`)));
    const smallCopyMbps = SMALL / ((performance.now() - t) / 1000);
    // The copies above end in the page cache; an upload also fsyncs. For comparison only.
    t = performance.now();
    await pipeline(createReadStream(src), createWriteStream(join(dir, 'copy-synced.bin'), { flush: true }));
    const bigSyncedMbps = 100 / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < SMALL; i++) await pipeline(createReadStream(small), createWriteStream(join(dir, `synced${i}.bin`), { flush: true }));
    const smallSyncedMbps = SMALL / ((performance.now() - t) / 1000);
    console.log(`yardsticks: "disk" = page-cache copy (no fsync; issue 9's target is >= 0.5 of it): 100 MB ${diskMbps.toFixed(0)} MB/s (median of ${spread(startCopies)}), 1 MB files one at a time ${smallCopyMbps.toFixed(0)} MB/s; "disk+fsync" = the same copies with an fsync before each close, as an upload does: 100 MB ${bigSyncedMbps.toFixed(0)} MB/s, 1 MB files ${smallSyncedMbps.toFixed(0)} MB/s`);
    /** A row's MB/s, its ratio to the 100 MB page-cache copy, and to a second yardstick (an upload's: the fsync copy of files of its size). */
    const rate = (bytes: number, ms: number, also?: [string, number]) => {
      const v = bytes / MB / (ms / 1000);
      return `${v.toFixed(0)} MB/s = ${(v / diskMbps).toFixed(2)} of disk${also ? `, ${(v / also[1]).toFixed(2)} of ${also[0]}` : ''}`;
    };
    const fsynced1 = ['disk+fsync', smallSyncedMbps] as [string, number];

    /** Uploads (token + PUT of the file read from disk) `n` 1 MB files to `to`, `width` at a time. */
    const uploadSmall = async (to: string, n: number, width: number, tag: string): Promise<string[]> => {
      const urls: string[] = [];
      await inParallel(n, width, async (i) => {
        const tk = await token(to, `${tag}${i}.bin`, MB);
        await put(tk.upload_url, await readFile(small), MB);
        urls[i] = tk.url;
      });
      return urls;
    };
    const downloadAll = async (urls: string[], width: number): Promise<void> => {
      await inParallel(urls.length, width, async (i) => {
        if ((await download(urls[i])) !== MB) throw new Error('short download');
      });
    };
    // The upload floor (bench/upload-floor.mjs): a plain Node server doing the same durable
    // upload (md5, write, link, fsync of file and directory; no database), fed by the same
    // client with the same files, so the ratio of what any Node server could reach here stands
    // next to Larder's (docs/benchmarks.md, Files).
    const floor = await startUploadFloor(join(dir, 'floor'));
    try {
      // Unmeasured: the first requests of a new process pay for compiling its code.
      // --warm N (default 2000): a server's JIT keeps compiling its code over its first few thousand
      // uploads (docs/benchmarks.md, "Per-upload overhead"), and what a user's server does for most
      // of its life is the warm state; the floor gets the same number, so Larder/floor stays fair.
      const WARM = Number(flags.warm);
      await downloadAll((await uploadSmall(base, WARM, 4, 'warm')).slice(0, 20), 4);
      await uploadSmall(floor.url, WARM, 4, 'warm');
      for (const width of [1, 4]) {
        // Larder and the floor take turns in blocks (the first of each pair swapped), so both
        // see the same moments of a shared machine's load; each side's time is the sum of its blocks.
        const sides = [{ url: base, pid: server.pid, ms: 0, cpu: 0, urls: [] as string[] }, { url: floor.url, pid: floor.pid, ms: 0, cpu: 0, urls: [] as string[] }];
        const per = Math.ceil(SMALL / BLOCKS);
        for (let b = 0; b < BLOCKS; b++) {
          for (const side of b % 2 ? [...sides].reverse() : sides) {
            const cpu = cpuOf([side.pid]);
            const t0 = performance.now();
            side.urls.push(...(await uploadSmall(side.url, per, width, `w${width}-${b}-`)));
            side.ms += performance.now() - t0;
            side.cpu += cpuUsed(cpu, cpuOf([side.pid])) * 1000;
          }
        }
        const [larder, fl] = sides;
        const n = per * BLOCKS;
        const cpu = cpuOf([server.pid]);
        t = performance.now();
        await downloadAll(larder.urls, width);
        const downMs = performance.now() - t;
        const downCpu = (cpuUsed(cpu, cpuOf([server.pid])) * 1000) / n;
        const how = width === 1 ? 'one at a time' : `${width} at a time`;
        console.log(`1 MB files x${n}, ${how}, upload (token + PUT): Larder ${rate(n * MB, larder.ms, fsynced1)} (${(larder.ms / n).toFixed(1)} ms each; server CPU ${(larder.cpu / n).toFixed(1)} ms/file)`);
        console.log(`1 MB files x${n}, ${how}, upload (token + PUT): floor  ${rate(n * MB, fl.ms, fsynced1)} (${(fl.ms / n).toFixed(1)} ms each; server CPU ${(fl.cpu / n).toFixed(1)} ms/file); Larder/floor: ${(fl.ms / larder.ms).toFixed(2)} of its MB/s at ${(larder.cpu / fl.cpu).toFixed(2)}x its CPU per file`);
        console.log(`1 MB files x${n}, ${how}, download: Larder ${rate(n * MB, downMs, ['1 MB copies', smallCopyMbps])} (server CPU ${downCpu.toFixed(1)} ms/file)`);
      }

      // 100 MB: --big rounds of a page-cache copy, Larder's upload and download, the floor's upload
      // (bench/upload-floor.mjs streams a body this large to disk as it arrives, md5 on its main
      // thread), side by side in time; then one more copy. Medians of each, and their spread.
      const copies: number[] = [];
      const up: number[] = [];
      const down: number[] = [];
      const floorUp: number[] = [];
      const bigRate = (ms: number) => 100 / (ms / 1000);
      for (let r = 0; r < BIG_ROUNDS; r++) {
        copies.push(...(await diskCopies(src, join(dir, 'copy.bin'), 1)));
        const sides = [
          async () => {
            const big = await token(base, `big${r}.bin`, 100 * MB);
            t = performance.now();
            await put(big.upload_url, createReadStream(src), 100 * MB);
            up.push(bigRate(performance.now() - t));
            t = performance.now();
            const got = await download(big.url);
            down.push(bigRate(performance.now() - t));
            if (got !== 100 * MB) throw new Error(`downloaded ${got} bytes`);
          },
          async () => {
            const big = await token(floor.url, `big${r}.bin`, 100 * MB);
            t = performance.now();
            await put(big.upload_url, createReadStream(src), 100 * MB);
            floorUp.push(bigRate(performance.now() - t));
          },
        ];
        for (const f of r % 2 ? [...sides].reverse() : sides) await f();
      }
      copies.push(...(await diskCopies(src, join(dir, 'copy.bin'), 1)));
      const bigDisk = median(copies);
      const of = (xs: number[]) => `${median(xs).toFixed(0)} MB/s = ${(median(xs) / bigDisk).toFixed(2)} of disk (${spread(xs)})`;
      console.log(`100 MB rounds x${BIG_ROUNDS}: disk (page-cache copy, between the uploads) ${bigDisk.toFixed(0)} MB/s (median of ${spread(copies)}; at the start: ${diskMbps.toFixed(0)}); disk+fsync ${bigSyncedMbps.toFixed(0)} MB/s`);
      console.log(`100 MB file: upload ${of(up)}, ${(median(up) / bigSyncedMbps).toFixed(2)} of disk+fsync; download ${of(down)} (target: >= 0.5 of disk)`);
      console.log(`100 MB file: floor upload ${of(floorUp)}; Larder/floor ${(median(up) / median(floorUp)).toFixed(2)} of its MB/s`);
    } finally {
      await floor.stop();
    }

    await new Promise((r) => setTimeout(r, 500));
    const idle = rssMb(server.pid) ?? NaN;
    let peak = idle;
    const timer = setInterval(() => {
      peak = Math.max(peak, rssMb(server.pid) ?? 0);
    }, 50);
    const huge = await token(base, 'huge.bin', BIG_MB * MB);
    t = performance.now();
    await put(huge.upload_url, repeated(chunk, BIG_MB), BIG_MB * MB);
    const hugeMs = performance.now() - t;
    clearInterval(timer);
    console.log(`${BIG_MB} MB upload: ${mbps(BIG_MB * MB, hugeMs)} MB/s; server RSS at start ${rssStart.toFixed(0)} MB, idle before ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)} MB; target < 100 MB above idle)`);

    const jpeg = await sharp({ create: { width: 2000, height: 1500, channels: 3 as const, background: '#808080', noise: { type: 'gaussian' as const, mean: 128, sigma: 40 } } }).jpeg({ quality: 85 }).toBuffer();
    const img = await token(base, 'photo.jpg', jpeg.length);
    await put(img.upload_url, Readable.from([jpeg]), jpeg.length);
    t = performance.now();
    for (let i = 0; i < THUMBS; i++) {
      const res = await fetch(`${img.url}?imageView/2/w/${200 + i}/h/${200 + i}/q/80/format/jpg`);
      if (!res.ok) throw new Error(`thumbnail ${res.status}`);
      await res.arrayBuffer();
    }
    const thumbMs = performance.now() - t;
    console.log(`thumbnails of a 2000x1500 JPEG (${(jpeg.length / MB).toFixed(1)} MB), one at a time, no cache: ${(THUMBS / (thumbMs / 1000)).toFixed(1)}/s`);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
