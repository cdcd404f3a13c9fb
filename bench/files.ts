/**
 * `npm run bench:files`: the file service over loopback, against one Larder process (PGlite,
 * local disk backend) started as a child process.
 *
 * 1. Raw disk copy speed of a 100 MB file (stream copy in this process): the yardstick.
 * 2. Upload (fileTokens + PUT upload_url) and download (GET url) MB/s of 1 MB and 100 MB files.
 * 3. Peak server RSS above idle while one 1 GB file is uploaded (RSS sampled every 50 ms).
 * 4. Thumbnails per second from a 2000x1500 JPEG (every request a new size: no cache hits).
 *
 * Flags: --small N (1 MB files, default 20), --thumbs N (default 20), --gb N (size of the big
 * upload in MB, default 1024).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { rssMb } from './memory-sampler.ts';
import { BENCH_KEYS, startServer } from './server-process.ts';

const { values: flags } = parseArgs({
  options: {
    small: { type: 'string', default: '20' },
    thumbs: { type: 'string', default: '20' },
    gb: { type: 'string', default: '1024' },
  },
});
const SMALL = Number(flags.small);
const THUMBS = Number(flags.thumbs);
const BIG_MB = Number(flags.gb);
const MB = 1024 * 1024;
const KEYS = { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': BENCH_KEYS.appKey, 'content-type': 'application/json' };

async function token(base: string, name: string, size: number): Promise<{ upload_url: string; url: string }> {
  const res = await fetch(`${base}/1.1/fileTokens`, { method: 'POST', headers: KEYS, body: JSON.stringify({ name, metaData: { size } }) });
  if (!res.ok) throw new Error(`fileTokens: ${res.status} ${await res.text()}`);
  return (await res.json()) as { upload_url: string; url: string };
}

/** PUTs a stream (no buffering in this process). */
function put(url: string, body: Readable, length: number): Promise<void> {
  return new Promise((done, fail) => {
    const req = request(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`PUT ${res.statusCode}`))));
    });
    req.on('error', fail);
    body.pipe(req);
  });
}

async function download(url: string): Promise<number> {
  const res = await fetch(url);
  let n = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) n += chunk.length;
  return n;
}

function repeated(chunk: Buffer, times: number): Readable {
  return Readable.from((function* () {
    for (let i = 0; i < times; i++) yield chunk;
  })());
}

const mbps = (bytes: number, ms: number) => (bytes / MB / (ms / 1000)).toFixed(0);

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
    let t = performance.now();
    await pipeline(createReadStream(src), createWriteStream(join(dir, 'copy.bin')));
    const diskMs = performance.now() - t;
    const diskMbps = (100 * MB) / MB / (diskMs / 1000);
    /** Share of the raw disk copy speed (issue 9's target: at least 0.5). */
    const ofDisk = (bytes: number, ms: number) => `${(bytes / MB / (ms / 1000) / diskMbps).toFixed(2)} of disk`;
    console.log(`machine: load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`raw disk copy, 100 MB: ${mbps(100 * MB, diskMs)} MB/s`);

    const small = await writeFile(join(dir, 'small.bin'), chunk).then(() => join(dir, 'small.bin'));
    const urls: string[] = [];
    t = performance.now();
    for (let i = 0; i < SMALL; i++) {
      const tk = await token(base, `s${i}.bin`, MB);
      await put(tk.upload_url, createReadStream(small), MB);
      urls.push(tk.url);
    }
    const upSmallMs = performance.now() - t;
    t = performance.now();
    for (const u of urls) await download(u);
    const downSmallMs = performance.now() - t;
    console.log(`1 MB files x${SMALL}: upload ${mbps(SMALL * MB, upSmallMs)} MB/s = ${ofDisk(SMALL * MB, upSmallMs)} (${(upSmallMs / SMALL).toFixed(1)} ms each, token included), download ${mbps(SMALL * MB, downSmallMs)} MB/s = ${ofDisk(SMALL * MB, downSmallMs)}`);

    const big = await token(base, 'big.bin', 100 * MB);
    t = performance.now();
    await put(big.upload_url, createReadStream(src), 100 * MB);
    const upBigMs = performance.now() - t;
    t = performance.now();
    const got = await download(big.url);
    const downBigMs = performance.now() - t;
    if (got !== 100 * MB) throw new Error(`downloaded ${got} bytes`);
    console.log(`100 MB file: upload ${mbps(100 * MB, upBigMs)} MB/s = ${ofDisk(100 * MB, upBigMs)}, download ${mbps(100 * MB, downBigMs)} MB/s = ${ofDisk(100 * MB, downBigMs)} (target: >= 0.5 of disk)`);

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
