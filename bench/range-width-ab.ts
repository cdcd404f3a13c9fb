/**
 * `tsx bench/range-width-ab.ts --root <baseline checkout> --template <database>
 *   [--widths 100,1000,...] [--rounds 5] [--per 4] [--max 200000] [--include]`
 *
 * The peer bench's range query `c` (`n` in a window, `order=-score`, limit 20, anonymous) at each
 * width, through HTTP, on a baseline checkout (A) and this one (B), each a server of one worker on
 * its own copy of `--template` (a database seeded by the peer bench and grown by SQL: 200,000 rows
 * with `n` in [0, --max), docs/benchmarks.md "random_page_cost for Larder's sessions"). One request
 * at a time, so each is the server's only work: per width and round, A and B in turn (the order
 * alternating), `--per` requests each on random windows of the width, after a warm-up of 12 per
 * side and width (the prepared statement's generic plan comes after its fifth run on a connection).
 * Prints the median wall time per request and the PostgreSQL CPU per request (the copy's
 * backends, /proc), medians over the rounds, and in how many rounds B was lower. `--include` adds
 * `include=owner` (the peer bench's `h`). For tuning by hand; not part of `npm run bench`.
 */
import { basename } from 'node:path';
import pg from 'pg';
import { arg } from './cli-args.ts';
import { backendPids, cpuOf, cpuUsed } from './process-cpu.ts';
import { startServer, type ServerProcess } from './server-process.ts';

const KEYS = { LARDER_APP_ID: 'benchApp', LARDER_APP_KEY: 'benchAppKey', LARDER_MASTER_KEY: 'benchMasterKey' };
const HEADERS = { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': KEYS.LARDER_APP_KEY };

interface Side {
  label: 'A' | 'B';
  server: ServerProcess;
  pool: pg.Pool;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function request(s: Side, width: number, max: number, include: boolean): Promise<void> {
  const x = Math.floor(Math.random() * (max - width + 1));
  const where = encodeURIComponent(JSON.stringify({ n: { $gte: x, $lt: x + width } }));
  const res = await fetch(`${s.server.url}/1.1/classes/Bench?where=${where}&order=-score&limit=20${include ? '&include=owner' : ''}`, { headers: HEADERS });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${s.label}: ${res.status} ${body.slice(0, 200)}`);
}

/** Wall ms and PostgreSQL CPU us per request of `per` requests. */
async function measure(s: Side, width: number, per: number, max: number, include: boolean): Promise<{ ms: number; pgUs: number }> {
  const pids = await backendPids(s.pool);
  const before = cpuOf(pids);
  const t0 = performance.now();
  for (let i = 0; i < per; i++) await request(s, width, max, include);
  const ms = (performance.now() - t0) / per;
  const pgUs = (cpuUsed(before, cpuOf(pids)) * 1e6) / per;
  return { ms, pgUs };
}

async function main(): Promise<void> {
  const root = arg('--root', '');
  const template = arg('--template', '');
  if (!root || !template) throw new Error('--root <baseline checkout> and --template <database> are required');
  const widths = arg('--widths', '100,1000,5000,10000,20000,50000,100000,200000').split(',').map(Number);
  const rounds = Number(arg('--rounds', '5'));
  const per = Number(arg('--per', '4'));
  const max = Number(arg('--max', '200000'));
  const include = process.argv.includes('--include');
  const base = arg('--url', 'postgres://postgres@127.0.0.1:5432/');
  const sides: Side[] = [];
  const admin = new pg.Client({ connectionString: base + 'postgres' });
  await admin.connect();
  try {
    for (const [label, r] of [['A', root], ['B', undefined]] as const) {
      const db = `${template}_${basename(process.cwd())}_w${label.toLowerCase()}`.slice(-63);
      await admin.query(`DROP DATABASE IF EXISTS "${db}"`);
      await admin.query(`CREATE DATABASE "${db}" TEMPLATE "${template}"`);
      const server = await startServer({ kind: 'postgres', url: base + db, schema: 'larder' }, 1, { root: r, env: KEYS });
      // One connection per side for the CPU samples; the server's own backends are found each time.
      sides.push({ label, server, pool: new pg.Pool({ connectionString: base + db, max: 1 }) });
    }
    console.log(`width | A ms | B ms | A pg us | B pg us | B lower (pg) of ${rounds} rounds`);
    for (const width of widths) {
      for (const s of sides) for (let i = 0; i < 12; i++) await request(s, width, max, include);
      const ms = new Map<string, number[]>([['A', []], ['B', []]]);
      const pgUs = new Map<string, number[]>([['A', []], ['B', []]]);
      let lower = 0;
      for (let r = 0; r < rounds; r++) {
        const got = new Map<string, number>();
        for (const s of r % 2 ? [...sides].reverse() : sides) {
          const m = await measure(s, width, per, max, include);
          ms.get(s.label)?.push(m.ms);
          pgUs.get(s.label)?.push(m.pgUs);
          got.set(s.label, m.pgUs);
        }
        if ((got.get('B') ?? 0) < (got.get('A') ?? 0)) lower++;
      }
      const f = (xs: number[] | undefined, d: number) => median(xs ?? []).toFixed(d);
      console.log(`${width} | ${f(ms.get('A'), 2)} | ${f(ms.get('B'), 2)} | ${f(pgUs.get('A'), 0)} | ${f(pgUs.get('B'), 0)} | ${lower}`);
    }
  } finally {
    for (const s of sides) {
      await s.pool.end();
      await s.server.stop();
    }
    await admin.end();
  }
}

await main();
