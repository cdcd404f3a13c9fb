/**
 * Memory and speed of a data export of a large class (issue 5: exporting 1,000,000 objects
 * keeps server memory under 300 MB). Seeds N objects (several field types, ACLs) and N/10
 * relation rows straight into the database with SQL, starts a real `larder` server, runs
 * POST /1.1/exportData, samples the server's RSS every 250 ms until the job is done, then
 * downloads the archive (streamed, counted, not kept) and reports.
 *
 *   npx tsx bench/export-memory.ts [--rows 1000000] [--engine postgres|pglite]
 *
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/larder_bench), a
 * fresh schema per run, dropped at the end. PGlite: a fresh data directory under the temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ident, sql } from '../src/sql/fragment.ts';
import { openDatabase } from '../src/storage/open-database.ts';
import type { Database } from '../src/storage/database.ts';
import { benchDatabaseUrl, ensureDatabase, freshSchemaName } from './bench-database.ts';
import { rssMb } from './memory-sampler.ts';
import { BENCH_KEYS, startServer, type ServerProcess, type ServerStorage } from './server-process.ts';

const CLASS = 'ExportBench';
const CHUNK = 50_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function peakHwmMb(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** What the export endpoints answer. */
interface JobAnswer {
  status: string;
  id: string;
  download_url?: string;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<JobAnswer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-lc-id': BENCH_KEYS.appId, 'x-lc-key': `${BENCH_KEYS.masterKey},master`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: unknown = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json as JobAnswer;
}

/** Inserts `rows` objects (ids 24 hex digits, like LeanCloud's) and rows/10 relation rows. */
async function seed(db: Database, rows: number): Promise<void> {
  const fields = { title: { type: 'String' }, score: { type: 'Number' }, when: { type: 'Date' }, where: { type: 'GeoPoint' }, owner: { type: 'Pointer', className: '_User' }, tags: { type: 'Array' }, likes: { type: 'Relation', className: '_User' } };
  await db.query(sql`INSERT INTO _larder_classes (name, fields) VALUES (${CLASS}, ${JSON.stringify(fields)}::jsonb) ON CONFLICT (name) DO UPDATE SET fields = EXCLUDED.fields`);
  const { createClassTable } = await import('../src/storage/class-table.ts');
  for (const ddl of createClassTable(CLASS)) await db.query(ddl);
  for (let start = 0; start < rows; start += CHUNK) {
    const end = Math.min(rows, start + CHUNK) - 1;
    await db.query(sql`INSERT INTO ${ident(CLASS)} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      SELECT lpad(to_hex(g), 24, '0'), now() - make_interval(secs => g), now() - make_interval(secs => g),
        jsonb_build_object('*', jsonb_build_object('read', true), 'u' || (g % 1000), jsonb_build_object('write', true)),
        ARRAY['*'], ARRAY['u' || (g % 1000)],
        jsonb_build_object('title', 'object number ' || g || ' with some text to make the row realistic', 'score', g * 1.5,
          'when', jsonb_build_object('__type', 'Date', 'iso', to_char(now() - make_interval(days => g % 3650), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
          'where', jsonb_build_object('__type', 'GeoPoint', 'latitude', (g % 180) - 90, 'longitude', (g % 360) - 180),
          'owner', jsonb_build_object('__type', 'Pointer', 'className', '_User', 'objectId', lpad(to_hex(g % 5000), 24, '0')),
          'tags', jsonb_build_array('a', 'b', g % 7),
          'likes', jsonb_build_object('__type', 'Relation', 'className', '_User'))
      FROM generate_series(${start}::int, ${end}::int) g`);
    await db.query(sql`INSERT INTO _larder_relations (owner_class, owner_id, key, target_class, target_id)
      SELECT ${CLASS}::text, lpad(to_hex(g), 24, '0'), 'likes', '_User', lpad(to_hex(g % 5000), 24, '0')
      FROM generate_series(${start}::int, ${end}::int) g WHERE g % 10 = 0`);
    process.stdout.write(`\rseeded ${end + 1} / ${rows}`);
  }
  process.stdout.write('\n');
}

async function openStorage(storage: ServerStorage): Promise<Database> {
  if (storage.kind === 'postgres') return openDatabase({ databaseUrl: storage.url, schema: storage.schema, poolSize: 2, statementTimeoutMs: 0 });
  return openDatabase({ dataDir: join(storage.dataDir, 'pglite'), schema: 'larder', poolSize: 1, statementTimeoutMs: 0 });
}

async function main(): Promise<void> {
  const rows = Number(arg('rows', '1000000'));
  const engine = arg('engine', 'postgres');
  const storage: ServerStorage = engine === 'pglite'
    ? { kind: 'pglite', dataDir: mkdtempSync(join(tmpdir(), 'larder-export-bench-')) }
    : { kind: 'postgres', url: benchDatabaseUrl(), schema: freshSchemaName() };
  if (storage.kind === 'postgres') await ensureDatabase(storage.url);
  // A first start migrates the database; the seed then goes straight in with SQL.
  let server: ServerProcess | undefined = await startServer(storage, 1);
  await server.stop();
  server = undefined;
  const db = await openStorage(storage);
  const seedStart = Date.now();
  await seed(db, rows);
  if (storage.kind === 'pglite') await db.close();
  console.log(`seed: ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  try {
    server = await startServer(storage, 1);
    const baseline = rssMb(server.pid) ?? 0;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server?.pid ?? 0) ?? 0)), 250);
    const t0 = Date.now();
    const { id } = await call(server.url, 'POST', '/1.1/exportData', { classes: CLASS });
    let status: JobAnswer;
    do {
      await new Promise((r) => setTimeout(r, 500));
      status = await call(server.url, 'GET', `/1.1/exportData/${id}`);
    } while (status.status === 'running');
    const exportMs = Date.now() - t0;
    if (status.status !== 'done') throw new Error(`export ended ${JSON.stringify(status)}`);
    // Download, streamed: count the bytes, keep none.
    const t1 = Date.now();
    const res = await fetch(status.download_url ?? '');
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const downloadMs = Date.now() - t1;
    clearInterval(sampler);
    const hwm = peakHwmMb(server.pid);
    console.log(JSON.stringify({
      engine, rows,
      exportSeconds: +(exportMs / 1000).toFixed(1),
      objectsPerSecond: Math.round(rows / (exportMs / 1000)),
      archiveMb: +(bytes / 1048576).toFixed(1),
      downloadSeconds: +(downloadMs / 1000).toFixed(1),
      rssBaselineMb: Math.round(baseline),
      rssPeakSampledMb: Math.round(peak),
      rssHighWaterMarkMb: hwm === undefined ? undefined : Math.round(hwm),
    }, null, 2));
  } finally {
    await server?.stop();
    if (storage.kind === 'postgres') {
      await db.exec(`DROP SCHEMA IF EXISTS "${storage.schema}" CASCADE`);
      await db.close();
      // The server's default export directory on PostgreSQL (src/export/export-options.ts).
      rmSync(join(tmpdir(), 'larder-exports', storage.schema), { recursive: true, force: true });
    } else {
      rmSync(storage.dataDir, { recursive: true, force: true });
    }
  }
}

await main();
