import { availableParallelism } from 'node:os';

/** What one `npm run bench` does; every field has a command-line flag. */
export interface BenchOptions {
  /** Seconds each measured workload runs, on each side (Larder and direct). */
  durationSec: number;
  /** Seconds of unmeasured load before each Larder workload (JIT, pools, caches). */
  warmupSec: number;
  /** Larder worker processes (`--workers` of the server). */
  workers: number;
  /** Concurrent HTTP connections and, on the direct side, pg.Pool connections. */
  connections: number;
  /** Objects seeded into the benchmark class before any measurement. */
  seedObjects: number;
  /** Write docs/benchmarks.md instead of only printing the table. */
  writeDocs: boolean;
  /** Skip the PGlite get-by-id run (it starts a second server). */
  skipPglite: boolean;
  /** Measure only these workload keys (for A/B runs while tuning); undefined: all of them. */
  only?: readonly string[];
  /** Cloud code workloads with the per-client rate limits counting (never refusing). */
  rateLimits: boolean;
}

const USAGE = `Usage: npm run bench -- [options]
  --duration <s>      seconds per measured workload and side (default 10)
  --warmup <s>        unmeasured seconds before each Larder workload (default: duration/5, at most 1)
  --workers <n>       Larder worker processes (default: number of cores)
  --connections <n>   HTTP connections and direct pg.Pool size (default 32)
  --seed <n>          objects seeded before measuring (default 10000)
  --write-docs        write the results to docs/benchmarks.md
  --no-pglite         skip the PGlite get-by-id run
  --only <keys>       measure only these workloads, comma-separated (get, range, count, include,
                      create, batch, incr-hot, incr-random, login, me, acl-public, acl-private,
                      acl-shared, cloud);
                      for quick A/B comparisons, not for the docs table
  --rate-limits       cloud code workloads with per-client rate limits on (the default of a real
                      server; set too high to refuse the load generator), to measure their cost
Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/larder_bench)
`;

function positive(flag: string, raw: string | undefined, integer: boolean): number {
  const n = Number(raw);
  if (raw === undefined || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`${flag} needs a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

function onlyKeys(raw: string | undefined): string[] {
  const keys = (raw ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  if (!keys.length) throw new Error(`--only needs a comma-separated list of workload keys\n${USAGE}`);
  return keys;
}

/** Parses the bench's own flags (`--flag value` or `--flag=value`); prints usage on --help. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const values = new Map<string, string | undefined>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`);
    const eq = arg.indexOf('=');
    if (eq > 0) values.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (arg === '--write-docs' || arg === '--no-pglite' || arg === '--rate-limits') values.set(arg, 'true');
    else values.set(arg, argv[++i]);
  }
  const known = ['--duration', '--warmup', '--workers', '--connections', '--seed', '--write-docs', '--no-pglite', '--only', '--rate-limits'];
  for (const k of values.keys()) if (!known.includes(k)) throw new Error(`unknown option ${k}\n${USAGE}`);
  const durationSec = values.has('--duration') ? positive('--duration', values.get('--duration'), false) : 10;
  return {
    durationSec,
    warmupSec: values.has('--warmup') ? positive('--warmup', values.get('--warmup'), false) : Math.min(1, durationSec / 5),
    workers: values.has('--workers') ? positive('--workers', values.get('--workers'), true) : availableParallelism(),
    connections: values.has('--connections') ? positive('--connections', values.get('--connections'), true) : 32,
    seedObjects: values.has('--seed') ? positive('--seed', values.get('--seed'), true) : 10_000,
    writeDocs: values.has('--write-docs'),
    skipPglite: values.has('--no-pglite'),
    only: values.has('--only') ? onlyKeys(values.get('--only')) : undefined,
    rateLimits: values.has('--rate-limits'),
  };
}
