/**
 * Table upkeep for the embedded engine, which has no autovacuum (PGlite is PostgreSQL in
 * single-user mode: no postmaster, no autovacuum launcher). Without it a table keeps the
 * statistics of its last ANALYZE (a class filled after it was created keeps reltuples -1, and
 * the planner may read it through the wrong index), and the dead tuples of updated and deleted
 * rows are never reclaimed (an update-heavy class grows forever).
 *
 * PGlite does keep PostgreSQL's cumulative statistics (n_mod_since_analyze, n_dead_tup in
 * pg_stat_user_tables), but a backend flushes its pending counters at most once a second and
 * single-user mode has no timer to flush them later: they read zero until the next flush.
 * pg_stat_force_next_flush() makes the end of that statement flush them, so the next statement
 * reads them. So Larder counts nothing on its write path. PGlite keeps them only while the engine
 * runs (every start, clean or after a cut statement, begins at zero): so a table never analyzed
 * that holds pages is analyzed whatever its counters say, else a class loaded before a restart
 * would wait for 50 more changes.
 *
 * The rule is autovacuum's with its default settings: ANALYZE when the rows changed since the
 * last ANALYZE exceed 50 + 10% of the table's rows, VACUUM when its dead rows exceed 50 + 20%.
 * The host runs it only once the engine is idle (next to the idle checkpoint), one table per
 * engine turn, and stops the round as soon as a request is waiting: a request waits at most one
 * table's upkeep. VACUUM costs in proportion to the table (measured in docs/benchmarks.md), which
 * is why it runs only when that many rows are dead, like autovacuum.
 */

/** Autovacuum's defaults: autovacuum_analyze_threshold, autovacuum_analyze_scale_factor... */
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;

/** One table's counters, as read by STATS_SQL. */
export interface TableCounters {
  table: string;
  /** pg_class.reltuples: -1 for a table never vacuumed nor analyzed. */
  reltuples: number;
  modsSinceAnalyze: number;
  deadTuples: number;
  /** The table's file is not empty (pg_relation_size > 0). */
  hasPages: boolean;
}

/** What a table needs: the statement keyword(s) to run on it, or undefined. */
export type Upkeep = 'VACUUM (ANALYZE)' | 'VACUUM' | 'ANALYZE';

/** Autovacuum's rule (see the file comment); a table never analyzed counts as empty. */
export function upkeepDue(t: TableCounters): Upkeep | undefined {
  const rows = Math.max(0, t.reltuples);
  const vacuum = t.deadTuples > VACUUM_BASE + VACUUM_SCALE * rows;
  const analyze = t.modsSinceAnalyze > ANALYZE_BASE + ANALYZE_SCALE * rows || (t.reltuples < 0 && t.hasPages);
  if (vacuum && analyze) return 'VACUUM (ANALYZE)';
  if (vacuum) return 'VACUUM';
  if (analyze) return 'ANALYZE';
  return undefined;
}

/** Flushes this backend's pending counters at the end of the statement (see the file comment). */
export const FLUSH_SQL = 'SELECT pg_stat_force_next_flush()';

/**
 * The counters of the schema's tables. The functions behind pg_stat_user_tables, called for the
 * two counters only: the view computes all twenty of them (30 tables: 30 ms against 10 ms).
 */
export const STATS_SQL =
  'SELECT c.relname AS "table", c.reltuples::float8 AS reltuples, pg_stat_get_mod_since_analyze(c.oid) AS "modsSinceAnalyze", ' +
  'pg_stat_get_dead_tuples(c.oid) AS "deadTuples", pg_relation_size(c.oid) > 0 AS "hasPages" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
  "WHERE n.nspname = $1 AND c.relkind = 'r'";

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The statement that gives `table` of `schema` its upkeep (names from the catalog, quoted). */
export function upkeepStatement(schema: string, table: string, what: Upkeep): string {
  return `${what} ${quoted(schema)}.${quoted(table)}`;
}

/** One table's upkeep, for the debug log (names and duration only, never data). */
export interface UpkeepDone {
  table: string;
  what: Upkeep;
  ms: number;
}

/** One statement of upkeep, sent to the worker like any (pglite-protocol.ts). */
export type Maintenance = { op: 'query'; text: string; values: unknown[] } | { op: 'exec'; text: string };

/** What a round needs from the engine; each `run` is one engine turn. */
export interface UpkeepEngine {
  run(m: Maintenance): Promise<Record<string, unknown>[]>;
  /** False once a request waits for the engine or holds it: the round stops. */
  idle(): boolean;
}

/**
 * One round: reads the counters, then gives each due table its upkeep, most changed first,
 * while the engine stays idle. Returns false when a request cut the round short.
 */
export async function upkeepRound(engine: UpkeepEngine, schema: string, onDone?: (d: UpkeepDone) => void): Promise<boolean> {
  await engine.run({ op: 'query', text: FLUSH_SQL, values: [] });
  if (!engine.idle()) return false;
  const counters = (await engine.run({ op: 'query', text: STATS_SQL, values: [schema] })) as unknown as TableCounters[];
  const due = counters
    .map((t) => ({ t, what: upkeepDue(t) }))
    .filter((d): d is { t: TableCounters; what: Upkeep } => d.what !== undefined)
    .sort((a, b) => b.t.deadTuples + b.t.modsSinceAnalyze - (a.t.deadTuples + a.t.modsSinceAnalyze));
  for (const { t, what } of due) {
    if (!engine.idle()) return false;
    const t0 = performance.now();
    await engine.run({ op: 'exec', text: upkeepStatement(schema, t.table, what) });
    onDone?.({ table: t.table, what, ms: Math.round(performance.now() - t0) });
  }
  return true;
}
