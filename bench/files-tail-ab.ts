/**
 * `tsx bench/files-tail-ab.ts --a <checkout> [--b <checkout>] [--mb 100] [--rounds 6] [--mbps 200]`:
 * the local disk stores of two checkouts in this process, each writing a body of `--mb` MiB that
 * arrives in 64 KiB chunks at about `--mbps` MB/s (as from a socket), a and b alternating. Prints
 * the whole write's wall time and its tail: from the body's last byte to write() returning (the
 * final fsync, rename and directory fsync), the part of an upload that waits on the disk alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values: flags } = parseArgs({ options: { a: { type: 'string' }, b: { type: 'string' }, mb: { type: 'string', default: '100' }, rounds: { type: 'string', default: '6' }, mbps: { type: 'string', default: '200' } } });
interface Store {
  write(location: string, body: Readable, opts: { maxBytes: number; contentType: string }): Promise<{ size: number }>;
  remove(location: string): Promise<void>;
}
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

/** `mb` MiB in 64 KiB chunks, paced to about `mbps` MB/s; `ended` gets the time of the last byte. */
function paced(mb: number, mbps: number, ended: { at: number }): Readable {
  const chunk = Buffer.alloc(64 * 1024, 5);
  const total = mb * 16;
  let sent = 0;
  const start = performance.now();
  return new Readable({
    read() {
      const due = start + ((sent * 64 * 1024) / (mbps * 1e6)) * 1000;
      const wait = Math.max(0, due - performance.now());
      setTimeout(() => {
        if (sent === total) {
          ended.at = performance.now();
          this.push(null);
          return;
        }
        sent++;
        this.push(Buffer.from(chunk));
      }, wait >= 1 ? wait : 0);
    },
  });
}

async function main(): Promise<void> {
  const here = fileURLToPath(new URL('..', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'larder-tail-ab-'));
  const load = async (root: string, sub: string): Promise<Store> => (await import(join(root, 'src/modules/files/local-disk-store.ts'))).LocalDiskStore.open(join(dir, sub));
  const stores: Record<string, Store> = { a: await load(flags.a ?? here, 'a'), b: await load(flags.b ?? here, 'b') };
  const res: Record<string, { wall: number; tail: number }[]> = { a: [], b: [] };
  const mb = Number(flags.mb);
  try {
    for (let r = 0; r < Number(flags.rounds); r++) {
      for (const k of r % 2 ? ['b', 'a'] : ['a', 'b']) {
        const ended = { at: 0 };
        const t0 = performance.now();
        const location = `${k}${r}${'y'.repeat(22)}`;
        await stores[k].write(location, paced(mb, Number(flags.mbps), ended), { maxBytes: 1 << 30, contentType: 'application/octet-stream' });
        const t1 = performance.now();
        res[k].push({ wall: t1 - t0, tail: t1 - ended.at });
        console.log(`round ${r + 1} ${k}: wall ${(t1 - t0).toFixed(0)} ms, tail ${(t1 - ended.at).toFixed(1)} ms; load ${loadavg()[0].toFixed(1)}`);
        await stores[k].remove(location);
      }
    }
    for (const k of ['a', 'b']) console.log(`${k}: wall median ${median(res[k].map((x) => x.wall)).toFixed(0)} ms, [${res[k].map((x) => x.wall.toFixed(0)).join(" ")}], tail median ${median(res[k].map((x) => x.tail)).toFixed(1)} ms [${res[k].map((x) => x.tail.toFixed(0)).join(' ')}]`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void main();
