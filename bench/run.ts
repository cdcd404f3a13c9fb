/**
 * `npm run bench`: Larder over HTTP against the same work done directly with pg, on PostgreSQL,
 * plus get by id on PGlite. Prints the results table (or writes docs/benchmarks.md with
 * --write-docs). Exits 0 when a target is missed (it prints MISSED); exits 1 only when the
 * benchmark itself cannot run (no database, server does not start, `larder index add` missing).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { BENCH_CLASS } from './bench-data.ts';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, openPool, redact } from './bench-database.ts';
import { addIndexesWithCli } from './cli-indexes.ts';
import { createDirectTables, indexDefinitions } from './direct-tables.ts';
import { measureWorkload } from './measure.ts';
import { MemorySampler } from './memory-sampler.ts';
import { parseBenchOptions, type BenchOptions } from './options.ts';
import { capturePlans } from './plans.ts';
import { pgliteGetById } from './pglite-run.ts';
import { machineInfo, renderConsole, renderDoc, type Report } from './report.ts';
import { seed } from './seed.ts';
import { REPO_ROOT, startServer, type ServerProcess } from './server-process.ts';
import { fmtInt, judge, type ResultRow, type WorkloadMeasurement } from './verdict.ts';
import { seedBenchUsers } from './user-workloads.ts';
import { seedAclBench } from './acl-workloads.ts';
import { workloads } from './workloads.ts';
import { cloudBench } from './cloud.ts';

/** Memory ceiling under load (from the issue), applied to each server process; the sum is reported. */
const MEMORY_TARGET_MB = 250;

const started = Date.now();
/** Progress goes to stderr with the elapsed time, so stdout holds only the report. */
const log = (line: string) => console.error(`[${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${line}`);

/** Servers, pools and schemas to release however the run ends. */
class Cleanup {
  private readonly servers: ServerProcess[] = [];
  private pool: pg.Pool | undefined;
  private schema: { url: string; name: string } | undefined;
  private running: Promise<void> | undefined;

  server(s: ServerProcess): void {
    this.servers.push(s);
  }
  setPool(p: pg.Pool): void {
    this.pool = p;
  }
  setSchema(url: string, name: string): void {
    this.schema = { url, name };
  }
  /** Releases everything once; later callers wait for the same cleanup to finish. */
  run(): Promise<void> {
    this.running ??= this.release();
    return this.running;
  }
  private async release(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop().catch(() => {})));
    await this.pool?.end().catch(() => {});
    if (this.schema) await dropSchema(this.schema.url, this.schema.name).catch((err: Error) => log(`could not drop schema ${this.schema?.name}: ${err.message}`));
  }
}

function memoryRows(sampler: MemorySampler, workers: number): ResultRow[] {
  const peak = sampler.peak();
  // Nothing sampled (e.g. `--only cloud`, whose workloads run on a server of their own): no verdict
  // on memory, rather than a MISSED about a measurement that was never made.
  if (!peak.samples) return [];
  const per: ResultRow = {
    workload: 'server memory under load, peak RSS per process', larder: `${fmtInt(peak.perProcessMb)} MB`, larderLatency: '-', direct: '-', directLatency: '-',
    ratio: '-', target: `< ${MEMORY_TARGET_MB} MB`, outcome: peak.perProcessMb < MEMORY_TARGET_MB ? 'pass' : 'MISSED', notes: [],
  };
  if (peak.primaryMb !== undefined) per.notes.push(`memory: the cluster primary (serves no requests) peaked at ${fmtInt(peak.primaryMb)} MB; it is in the sum`);
  const total: ResultRow = {
    workload: `server memory, all ${workers > 1 ? `${workers} workers + primary` : 'processes'} summed`, larder: `${fmtInt(peak.totalMb)} MB`, larderLatency: '-',
    direct: '-', directLatency: '-', ratio: '-', target: '-', outcome: '-', notes: [],
  };
  return [per, total];
}

async function postgresVersion(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ v: string }>(`SELECT 'PostgreSQL ' || current_setting('server_version') AS v`);
  return rows[0].v;
}

async function runBench(opts: BenchOptions, cleanup: Cleanup): Promise<Report> {
  const url = benchDatabaseUrl();
  const schema = freshSchemaName();
  const startLoad = loadavg()[0];
  log(`bench: PostgreSQL ${redact(url)}, schema ${schema}, ${opts.workers} worker(s), ${opts.connections} connections, ${opts.durationSec} s per workload`);
  await ensureDatabase(url);
  cleanup.setSchema(url, schema);
  const pool = openPool(url, schema, opts.connections);
  cleanup.setPool(pool);
  const storage = { kind: 'postgres' as const, url, schema };
  const server = await startServer(storage, opts.workers, { onSpawn: (s) => cleanup.server(s) });
  log(`bench: Larder listening on ${server.url} (pid ${server.pid}, workers ${server.workerPids().join(', ')})`);
  const seeded = await seed(server.url, opts.seedObjects, pool);
  log(`bench: seeded ${seeded.benchIds.length} objects (${seeded.method}) and ${seeded.ownerIds.length} owners`);
  await addIndexesWithCli(storage, BENCH_CLASS, ['score', 'category']);
  // Without the run's throw-away schema name, so the docs stay readable from run to run.
  const indexes = (await indexDefinitions(pool, BENCH_CLASS)).filter((d) => /'(score|category)'/.test(d)).map((d) => d.replace(` ON ${schema}.`, ' ON '));
  log(`bench: indexes made by 'larder index add':\n  ${indexes.join('\n  ')}`);
  await createDirectTables(pool);
  const plans = await capturePlans(url, schema, pool);
  const sampler = new MemorySampler(() => ({ primary: server.pid, workers: server.workerPids() }));
  const wanted = (...keys: string[]) => !opts.only || keys.some((k) => opts.only?.includes(k));
  // With --only, the user and ACL data are seeded only when one of their workloads is measured.
  const users = wanted('login', 'me') ? await seedBenchUsers(server.url) : [];
  if (users.length) log(`bench: signed up ${users.length} users`);
  const acl = wanted('acl-public', 'acl-private', 'acl-shared') ? await seedAclBench(server.url, pool) : undefined;
  if (acl) log('bench: seeded the ACL classes (1,000 users, 20 roles, 3 x 10,000 objects)');
  const data = { benchIds: seeded.benchIds, ownerIds: seeded.ownerIds, hotId: seeded.benchIds[0], users, acl };
  // Seeding leaves dead tuples, unset hint bits and dirty pages behind; settle them now so that
  // autovacuum and checkpoints do not land in the first measured workloads (on either side).
  const tables = await pool.query<{ t: string }>(`SELECT quote_ident(tablename) AS t FROM pg_tables WHERE schemaname = current_schema()`);
  for (const { t } of tables.rows) await pool.query(`VACUUM ANALYZE ${t}`);
  await pool.query('CHECKPOINT');
  const measured: WorkloadMeasurement[] = [];
  for (const w of workloads(data).filter((x) => wanted(x.key))) {
    log(`bench: ${w.title}`);
    const m = await measureWorkload(w, { baseUrl: server.url, pool, data, durationSec: opts.durationSec, warmupSec: opts.warmupSec, connections: opts.connections, sampler, log });
    if (w.key === 'count') m.plan = plans.find((p) => p.key === 'count')?.plan;
    measured.push(m);
    log(`  peak RSS so far: ${fmtInt(sampler.peak().perProcessMb)} MB in one process, ${fmtInt(sampler.peak().totalMb)} MB summed`);
  }
  await server.stop();
  const rows = [...measured.map(judge), ...memoryRows(sampler, opts.workers)];
  if (wanted('cloud')) {
    log('bench: cloud code (a server supervising test/fixtures/engine-app)');
    rows.push(...(await cloudBench({ storage, workers: opts.workers, rateLimits: opts.rateLimits, durationSec: opts.durationSec, warmupSec: opts.warmupSec, connections: opts.connections, log, track: (s) => cleanup.server(s) })));
  }
  if (!opts.skipPglite) {
    log('bench: get by id on PGlite');
    rows.push(await pgliteGetById({ durationSec: opts.durationSec, warmupSec: opts.warmupSec, connections: opts.connections, log, track: (s) => cleanup.server(s) }));
  }
  const cores = machineInfo('').cores;
  return {
    machine: machineInfo(await postgresVersion(pool)),
    settings: { durationSec: opts.durationSec, warmupSec: opts.warmupSec, workers: opts.workers, connections: opts.connections, seedObjects: opts.seedObjects },
    seedMethod: seeded.method === 'batch' ? 'through POST /1.1/batch' : seeded.method === 'sql' ? 'the first through the API, the rest with SQL INSERTs in the class-table row format, because /1.1/batch was not available' : 'one request per object',
    indexes,
    rows,
    plans: plans.map((p) => ({ title: p.title, plan: p.plan })),
    loadAtStart: startLoad,
    busyMachineNote: startLoad > cores * 0.5 ? `The machine was busy when this run started (1-minute load average ${startLoad.toFixed(1)} on ${cores} cores): treat the numbers as indicative only.` : undefined,
  };
}

async function main(): Promise<void> {
  let opts: BenchOptions;
  try {
    opts = parseBenchOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`bench: ${(err as Error).message}`);
    process.exit(2);
  }
  const cleanup = new Cleanup();
  let stopping = false;
  const interrupted = () => {
    stopping = true;
    log('bench: interrupted, cleaning up');
    void cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let report: Report;
  try {
    report = await runBench(opts, cleanup);
  } catch (err) {
    // After an interrupt the servers are going away; the error that follows is not the news.
    if (!stopping) console.error(`\nbench FAILED: ${(err as Error).message}`);
    await cleanup.run();
    process.exit(stopping ? 130 : 1);
  }
  await cleanup.run();
  process.stdout.write(renderConsole(report));
  if (opts.writeDocs) {
    const path = join(REPO_ROOT, 'docs', 'benchmarks.md');
    writeFileSync(path, keepOtherSections(renderDoc(report), existsSync(path) ? readFileSync(path, 'utf8') : ''));
    log(`bench: wrote ${path}`);
  }
  process.exit(0);
}

/**
 * Other benchmarks (bench:presence, bench:import, export memory) write their own `## ` sections
 * of the same file; the main report replaces only the sections it renders.
 */
function keepOtherSections(generated: string, existing: string): string {
  const sections = (doc: string) => doc.split(/\n(?=## )/).slice(1);
  const ours = new Set(sections(generated).map((sec) => sec.split('\n', 1)[0]));
  const others = sections(existing).filter((sec) => !ours.has(sec.split('\n', 1)[0]));
  return others.length ? `${generated.trimEnd()}\n\n${others.map((sec) => sec.trimEnd()).join('\n\n')}\n` : generated;
}

void main();
