import { cpus, totalmem } from 'node:os';
import type { PlanReport } from './plan-check.ts';
import type { ResultRow } from './verdict.ts';

/** The machine and software a run was taken on. */
export interface MachineInfo {
  cores: number;
  cpu: string;
  memoryGb: number;
  node: string;
  postgres: string;
  date: string;
}

/** Describes this machine; the PostgreSQL version comes from the server. */
export function machineInfo(postgres: string): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    cpu: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    postgres,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  };
}

/** Everything the printed report and docs/benchmarks.md show. */
export interface Report {
  machine: MachineInfo;
  settings: { durationSec: number; warmupSec: number; workers: number; connections: number; seedObjects: number };
  seedMethod: string;
  indexes: string[];
  rows: ResultRow[];
  plans: { title: string; plan: PlanReport }[];
  /** 1-minute load average when the run started (other work on the machine skews the numbers). */
  loadAtStart: number;
  /** Set when other work shared the machine (the numbers are then only indicative). */
  busyMachineNote?: string;
}

const HEADER = ['Workload', 'Larder', 'p50 / p99 ms', 'Direct pg', 'p50 / p99 ms', 'Larder/direct', 'Target', 'Result'];

/** The results as a Markdown table, padded so it also reads well in a terminal. */
export function resultTable(rows: readonly ResultRow[]): string {
  const cells = rows.map((r) => [r.workload, r.larder, r.larderLatency, r.direct, r.directLatency, r.ratio, r.target, r.outcome]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: readonly string[]) => `| ${c.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
  return [line(HEADER), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

/** The notes under the table: every miss and error, with its reason. */
export function notes(rows: readonly ResultRow[]): string[] {
  return rows.flatMap((r) => r.notes);
}

/** The one-line summary: which targets were missed. */
export function summary(rows: readonly ResultRow[]): string {
  const missed = rows.filter((r) => r.outcome === 'MISSED' || r.outcome === 'ERROR');
  if (!missed.length) return 'All targets met.';
  return `MISSED: ${missed.map((r) => `${r.workload} (${r.outcome === 'ERROR' ? 'could not measure' : r.target})`).join('; ')}`;
}

function planSection(plans: Report['plans']): string {
  return plans
    .map(({ title, plan }) => [
      `#### ${title}`,
      '',
      '```sql',
      plan.sql,
      '```',
      '',
      'Plan (default settings):',
      '',
      '```',
      plan.plan,
      '```',
      '',
      `Per-row functions in the filter: ${plan.filterFunctions.length ? plan.filterFunctions.join(', ') : 'none'}. ` +
        `Index on the field usable (plan with enable_seqscan=off): ${plan.fieldIndexesUsed.length ? plan.fieldIndexesUsed.join(', ') : 'no'}.`,
    ].join('\n'))
    .join('\n\n');
}

/** The text printed at the end of a run. */
export function renderConsole(r: Report): string {
  const n = notes(r.rows);
  return [
    '',
    resultTable(r.rows),
    '',
    ...(n.length ? ['Notes:', ...n.map((x) => `  - ${x}`), ''] : []),
    summary(r.rows),
    ...(r.busyMachineNote ? ['', r.busyMachineNote] : []),
    '',
    ...r.plans.map(({ title, plan }) => `${title}: filter functions [${plan.filterFunctions.join(', ')}], field index usable: ${plan.fieldIndexesUsed.join(', ') || 'no'}\n  ${plan.plan.split('\n').join('\n  ')}`),
    '',
  ].join('\n');
}

/** docs/benchmarks.md. */
export function renderDoc(r: Report): string {
  const m = r.machine;
  const s = r.settings;
  const n = notes(r.rows);
  return `# Benchmarks

Produced by \`npm run bench -- --write-docs\` (bench/run.ts). Numbers depend on the machine; compare
ratios rather than absolute rates.

## Machine

- ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB memory
- Node.js ${m.node}, ${m.postgres}
- Taken ${m.date}; 1-minute load average at the start: ${r.loadAtStart.toFixed(1)}${r.busyMachineNote ? `\n- **${r.busyMachineNote}**` : ''}

## Method

- Larder runs as a real child process, \`node --import tsx src/main.ts --workers ${s.workers}\`, on PostgreSQL
  (a fresh schema per run, dropped afterwards), log level \`warn\`, listening on loopback.
- ${fmt(s.seedObjects)} objects of class \`Bench\` {score, category, n, name, owner: Pointer<BenchOwner>} are seeded
  (${r.seedMethod}), then \`larder index add Bench score\` and \`larder index add Bench category\` create the indexes.
- Load: autocannon, ${s.connections} keep-alive connections, ${s.durationSec} s per workload after ${s.warmupSec} s of
  unmeasured warm-up. Requests carry \`X-LC-Id\` + \`X-LC-Key\` (app key, so every query includes the ACL
  filter). The SDKs sign with \`X-LC-Sign\` = md5(timestamp + key) instead; the plain key keeps the load
  generator's own CPU use down on a small machine.
- Direct: the same work with \`pg\` from the bench process, a pg.Pool of ${s.connections} connections, ${s.connections}
  concurrent loops, ${s.durationSec} s each, on copies of the seeded tables (same rows and row format) with
  hand-written expression indexes; the SQL applies the same ACL filter (\`rperm && '{*}'\`). Its
  fixed-shape statements (get by id, insert, increment, owners by ids, user lookups) are named
  prepared statements; range and count stay unnamed, for the generic-plan reason below. Increment is
  \`UPDATE ... SET data = jsonb_set(...)\`, the batch is one multi-row INSERT of 50, include is two queries.
- The load generator, Larder and PostgreSQL share the machine's cores, which costs the HTTP side more
  than the direct side.
- Hot-row increments: the stored counter must grow by exactly the number of acknowledged increments in
  a fixed-count run, and by between the acknowledged and the sent number in the timed run (requests in
  flight when the run stops may still be applied).
- Count with \`$in\`: Larder's own statement for the query (captured by running its use-case code with a
  recording database handle) is EXPLAINed on the direct connection; it passes when no function is called
  per row in the filter and the category index can serve it (EXPLAIN with \`enable_seqscan = off\`).
- Memory: VmRSS of the server's processes from /proc, sampled every 250 ms during the HTTP load. The
  target (< 250 MB) is read as per process: it applies to the highest RSS of any one process (each
  worker and the cluster primary); the whole server's sum (all workers + primary) is shown too, with
  no target. Each process pays about 35 MB for running TypeScript through \`tsx\` (its loader thread).

## What keeps Larder close to the direct figures

- Reads over HTTP (get by id, class queries without \`include\`, \`keys\` or a shown ACL, outside
  batches) select \`data::text\` and splice the answer from the documents' JSON text instead of
  parsing each document and serialising it again (src/objects/raw-json.ts); a page that holds a File
  reference, or a class with hidden fields (\`_User\`), takes the parsing path, which encodes the
  documents it has just parsed in place instead of copying them.
- \`order\`'s objectId tie-breaker runs the way the last key does, so the index \`larder index add\`
  makes (\`expression NULLS FIRST, "objectId"\`) serves \`order=-field\` by a backward scan without a sort.
- Get by id, the single-object insert and an update by id without \`where\` (increments and other
  field operations) run as named prepared statements (planned once per pooled connection;
  src/storage/prepared-statements.ts). Queries built from client \`where\`s are not prepared: the
  generic plan of the range query ANDs in the GIN \`rperm\` index and costs about 12 times the
  custom plan (EXPLAIN ANALYZE: 17.5 ms against 1.4 ms).
  (Behind PgBouncer in transaction mode this needs PgBouncer 1.21+ with \`max_prepared_statements\` set.)
- A batch's run of creates in one class checks the class permission and computes the default ACL
  once, and inserts the objects in one statement that sends a shared ACL once and the documents as
  one JSON array; a single create is a plain \`INSERT ... VALUES\`.
- Memory: PGlite (about 40 MB of WASM) is imported only when the embedded engine is used, and the
  cluster primary imports none of the server's modules: a one-off child process migrates and reports
  the keys, then the workers start. Cluster workers get \`UV_THREADPOOL_SIZE=2\` (password hashing,
  16 MiB of scrypt memory per thread) and \`MALLOC_ARENA_MAX=2\` unless the environment sets them
  (src/cli/serve.ts \`workerEnv\`); together about 40 MB less RSS per worker in the bench.
  Not set: V8's \`--max-semi-space-size=64\` (e.g. through \`NODE_OPTIONS\`) cut Larder's CPU per batch by
  about 15% in a one-worker test, for up to about 50 MB more per process.
- Tuning on a shared machine: \`npm run bench -- --only get,range\` measures a few workloads;
  \`tsx bench/cpu-cost.ts --only batch [--root <other checkout>] [--prof]\` prints CPU time per operation
  of Larder, its PostgreSQL backends and the load generator (steadier than throughput when other work
  shares the cores), and with --prof the hottest functions of the server; \`tsx bench/ab-compare.ts --root
  <baseline checkout>\` runs a baseline server and this checkout's side by side, alternating short runs.

## Results

${resultTable(r.rows)}

${n.length ? `Notes:\n\n${n.map((x) => `- ${x}`).join('\n')}\n\n` : ''}${summary(r.rows)}

Indexes made by \`larder index add\`:

${r.indexes.map((i) => `- \`${i}\``).join('\n') || '- (none)'}

### Plans of Larder's statements

${planSection(r.plans)}

## How to run

\`\`\`sh
npm run bench                          # defaults: 10 s per workload, --workers = number of cores
npm run bench -- --duration 3          # a quick check
npm run bench -- --write-docs          # rewrite this page
BENCH_DATABASE_URL=postgres://user@host:5432/db npm run bench
\`\`\`

Other options: \`--workers <n>\`, \`--connections <n>\`, \`--seed <n>\`, \`--warmup <s>\`, \`--no-pglite\`,
\`--only <keys>\` (a few workloads, for quick comparisons; not for this page).
The database is created when missing; each run uses and then drops its own schema. A missed target is
printed as MISSED; the command still exits 0 (it is a benchmark, not a test).
`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
