/**
 * `node bench/upload-wal-cost.mjs [rounds 6] [uploads per round 1000] [checkpoint every N uploads 1000] [variants...]`
 *
 * What one upload's two statements cost the embedded engine in WAL and file writes, under
 * PostgreSQL settings given to PGlite at start (`-c name=value`), in process: PGlite on temporary
 * data directories through NodeFS (as the server's worker mounts them), the files module's tables
 * and statements as bench/upload-statement-cost.mjs sends them (the token's `WITH ... INSERT`, the
 * commit), a CHECKPOINT every N uploads as the server's host runs one every 30 s while busy
 * (pglite-checkpoint.ts; 1000 uploads is about 10 s of one-at-a-time 1 MB uploads). One PGlite
 * per variant, all in this thread, rounds interleaved (order swapped every round). Per round and
 * variant, per upload: this thread's CPU (/proc/thread-self/schedstat; the checkpoints
 * included), wall time, WAL records, full-page images and bytes (pg_stat_wal), and the file
 * writes PGlite's Emscripten file layer made (NODEFS `write` calls and bytes, wall time in them).
 *
 * Variants (`-c` settings on top of PGlite's defaults):
 * - base: none (what the server runs);
 * - pglz: wal_compression=pglz (full-page images compressed; PGlite has no lz4 or zstd);
 * - minimal: wal_level=minimal, max_wal_senders=0 (PGlite's default is replica, for no replica);
 * - nozero: wal_init_zero=off (a new WAL segment is not filled with 16 MB of zeros first);
 * - nofpw: full_page_writes=off (diagnostic only: how much of the WAL the full-page images
 *   are; not a setting for Larder, whose crash promise needs them: docs/running.md).
 * `BENCH_THRASH_KIB=1024`: before each statement, this thread md5s and copies that many KiB of
 * other memory (outside the CPU time counted), as the server's threads hash and write an upload's
 * body between its two statements: what cold caches do to the statements' cost.
 * docs/benchmarks.md, "Files".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { namedStatement } from '../src/storage/pglite-messages.mjs';

const rounds = Number(process.argv[2] ?? 6);
const per = Number(process.argv[3] ?? 1000);
const checkpointEvery = Number(process.argv[4] ?? 1000);
const chosen = process.argv.slice(5).length ? process.argv.slice(5) : ['base', 'pglz', 'minimal'];
const VARIANTS = {
  base: [],
  pglz: ['wal_compression=pglz'],
  minimal: ['wal_level=minimal', 'max_wal_senders=0'],
  nozero: ['wal_init_zero=off'],
  nofpw: ['full_page_writes=off'],
};
// process.cpuUsage (getrusage) is exact at any moment; schedstat of a running thread can lag by a tick, too coarse around the thrash.
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };

const TABLES = `CREATE TABLE "_File" ("objectId" text PRIMARY KEY, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL, acl jsonb, rperm text[] NOT NULL, wperm text[] NOT NULL, data jsonb NOT NULL DEFAULT '{}'::jsonb);
  CREATE INDEX ON "_File" USING gin (rperm) WITH (fastupdate = off);
  CREATE INDEX ON "_File" ("createdAt");
  CREATE INDEX ON "_File" ("updatedAt");
  CREATE TABLE _larder_files (object_id text PRIMARY KEY, key text NOT NULL UNIQUE, blob text NOT NULL, state text NOT NULL, token_hash text UNIQUE,
    mime_type text NOT NULL, name text NOT NULL, size bigint, md5 text, expires_at timestamptz NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), created_at timestamptz NOT NULL DEFAULT now());`;

const INSERT = `WITH before_insert AS (INSERT INTO _larder_files (object_id, key, blob, state, token_hash, mime_type, name, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))) INSERT INTO "_File" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES ($9, $10::timestamptz, $11::timestamptz, $12::jsonb, $13::text[], $14::text[], $15::jsonb)`;
const COMMIT = `WITH record AS (SELECT "objectId" FROM "_File" WHERE "objectId" = $1 FOR UPDATE),
    file AS (UPDATE _larder_files SET state = 'committed', size = $2, md5 = $3, updated_at = now()
      WHERE object_id = $4 AND state = ANY($5::text[]) AND EXISTS (SELECT 1 FROM record)
        AND ($6::timestamptz IS NULL OR expires_at > $7::timestamptz) RETURNING object_id),
    updated AS (UPDATE "_File" SET data = jsonb_set(data, '{metaData}', COALESCE(data->'metaData', '{}'::jsonb) || $8::jsonb), "updatedAt" = now()
      WHERE "objectId" IN (SELECT object_id FROM file) RETURNING "objectId")
    SELECT (SELECT count(*) FROM updated) AS committed, EXISTS (SELECT 1 FROM record) AS present`;

/** One variant's engine: its PGlite, its prepared names, its file writes so far. */
async function engine(name) {
  const dir = mkdtempSync(join(tmpdir(), `larder-wal-cost-${name}-`));
  const db = await PGlite.create({ fs: new NodeFS(dir), startParams: [...PGlite.defaultStartParams, ...VARIANTS[name].flatMap((kv) => ['-c', kv])] });
  const writes = { n: 0, bytes: 0, ms: 0 };
  const ops = db.Module.NODEFS.stream_ops;
  const write = ops.write;
  ops.write = function (stream, buffer, offset, length, position) {
    const t = performance.now();
    try {
      return write.call(this, stream, buffer, offset, length, position);
    } finally {
      writes.n++;
      writes.bytes += length;
      writes.ms += performance.now() - t;
    }
  };
  await db.exec(TABLES);
  return { name, dir, db, names: new Map(), writes, uploads: 0, res: [] };
}

const THRASH = Number(process.env.BENCH_THRASH_KIB ?? 0) * 1024;
const thrashFrom = Buffer.alloc(THRASH, 5);
const thrashTo = Buffer.alloc(THRASH);
/** CPU time spent thrashing (taken out of the CPU counted). */
let thrashNs = 0;
function thrash() {
  if (!THRASH) return;
  const c = cpu();
  createHash('md5').update(thrashFrom).digest();
  thrashFrom.copy(thrashTo);
  thrashNs += cpu() - c;
}

async function run(e, text, values) {
  thrash();
  let name = e.names.get(text);
  const first = name === undefined;
  if (first) e.names.set(text, (name = `s${e.names.size}`));
  let err;
  await e.db.execProtocolRawStream(namedStatement(name, first ? text : undefined, values), {
    syncToFs: false,
    onRawData: (b) => {
      if (b[0] === 0x45) err = new TextDecoder().decode(b);
    },
  });
  if (err) throw new Error(err);
}

const id = () => randomBytes(8).toString('hex').slice(0, 10);
const acl = JSON.stringify({ '*': { read: true, write: true } });
async function upload(e) {
  const o = id();
  const key = `${randomBytes(12).toString('hex')}.bin`;
  const now = new Date().toISOString();
  const data = JSON.stringify({ name: 'f.bin', url: `http://127.0.0.1:1/files/${key}`, key, bucket: 'larder', mime_type: 'application/octet-stream', provider: 'larder', metaData: { owner: 'unknown', size: 1048576 } });
  await run(e, INSERT, [o, key, `ab/${id()}`, 'pending', randomBytes(32).toString('hex'), 'application/octet-stream', 'f.bin', 3600, o, now, now, acl, ['*'], ['*'], data]);
  await run(e, COMMIT, [o, 1048576, randomBytes(16).toString('hex'), o, ['pending', 'uploading'], null, null, JSON.stringify({ size: 1048576, _checksum: 'x' })]);
  if (++e.uploads % checkpointEvery === 0) await e.db.exec('CHECKPOINT');
}

/**
 * The WAL so far: bytes by LSN, records and full-page images by pg_stat_wal, whose counters a
 * single-user backend flushes at most once a second unless told to (pglite-upkeep.ts does the same).
 */
async function wal(e) {
  await e.db.query('SELECT pg_stat_force_next_flush()');
  return (await e.db.query("SELECT wal_records::float8 AS records, wal_fpi::float8 AS fpi, (pg_current_wal_insert_lsn() - '0/0')::float8 AS bytes FROM pg_stat_wal")).rows[0];
}

const engines = [];
try {
  for (const k of chosen) engines.push(await engine(k));
  // Warm-up: plans, caches, the WebAssembly's tiers; then a checkpoint, as a running server has had.
  for (const e of engines) {
    for (let i = 0; i < 300; i++) await upload(e);
    await e.db.exec('CHECKPOINT');
  }
  for (let r = 0; r < rounds; r++) {
    for (const e of r % 2 ? [...engines].reverse() : engines) {
      const w0 = await wal(e);
      const f0 = { ...e.writes };
      const c0 = cpu();
      const x0 = thrashNs;
      const t0 = performance.now();
      for (let i = 0; i < per; i++) await upload(e);
      const c = (cpu() - c0 - (thrashNs - x0)) / 1e3 / per;
      const t = ((performance.now() - t0) * 1e3) / per;
      const w1 = await wal(e);
      e.res.push({ cpu: c, wall: t, records: (w1.records - w0.records) / per, fpi: (w1.fpi - w0.fpi) / per, bytes: (w1.bytes - w0.bytes) / per, writes: (e.writes.n - f0.n) / per, wbytes: (e.writes.bytes - f0.bytes) / per, wus: ((e.writes.ms - f0.ms) * 1e3) / per });
      const x = e.res.at(-1);
      console.log(`round ${r + 1} ${e.name}: CPU ${x.cpu.toFixed(0)} us/upload, wall ${x.wall.toFixed(0)} us; WAL ${x.records.toFixed(1)} records, ${x.fpi.toFixed(2)} FPI, ${(x.bytes / 1024).toFixed(2)} KiB; file writes ${x.writes.toFixed(2)} calls, ${(x.wbytes / 1024).toFixed(1)} KiB, ${x.wus.toFixed(0)} us; load ${loadavg()[0].toFixed(1)}`);
    }
  }
  const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  for (const e of engines) {
    const m = (k) => med(e.res.map((x) => x[k]));
    console.log(`${e.name} (${VARIANTS[e.name].join(' ') || 'defaults'}): CPU median ${m('cpu').toFixed(0)} us/upload [${e.res.map((x) => x.cpu.toFixed(0)).join(' ')}], wall ${m('wall').toFixed(0)} us; WAL ${m('records').toFixed(1)} records, ${m('fpi').toFixed(2)} FPI, ${(m('bytes') / 1024).toFixed(2)} KiB; file writes ${m('writes').toFixed(2)} calls, ${(m('wbytes') / 1024).toFixed(1)} KiB, ${m('wus').toFixed(0)} us [${e.res.map((x) => x.wus.toFixed(0)).join(' ')}]`);
  }
} finally {
  for (const e of engines) {
    await e.db.close().catch(() => {});
    rmSync(e.dir, { recursive: true, force: true });
  }
}
