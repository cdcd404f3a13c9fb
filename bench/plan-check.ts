import type pg from 'pg';
import type { Sql } from '../src/sql/fragment.ts';
import type { Database } from '../src/storage/database.ts';
import { BENCH_KEYS } from './server-process.ts';

/** What EXPLAIN says about one statement Larder runs. */
export interface PlanReport {
  sql: string;
  /** The planner's choice with default settings. */
  plan: string;
  /** The plan with sequential scans disabled: shows whether an index can serve the query at all. */
  planWithoutSeqScan: string;
  /** Indexes (named in `fieldIndexes`) used by the plan without seq scans. */
  fieldIndexesUsed: string[];
  /** Functions called per row in Filter lines of the default plan (e.g. a type guard). */
  filterFunctions: string[];
}

const NOT_FUNCTIONS = new Set(['ANY', 'ALL', 'ARRAY', 'ROW']);

/** Function names called in the Filter lines of a text plan (not Index Cond: those are index-side). */
export function filterFunctions(plan: string): string[] {
  const found = new Set<string>();
  for (const line of plan.split('\n')) {
    const m = /^\s*(?:->\s*)?(?:Filter|Recheck Cond|Join Filter): (.*)$/.exec(line);
    if (!m) continue;
    for (const call of m[1].matchAll(/([A-Za-z_][A-Za-z0-9_.]*)\(/g)) if (!NOT_FUNCTIONS.has(call[1].toUpperCase())) found.add(call[1]);
  }
  return [...found];
}

/**
 * Opens Larder's own use-case code in this process on the bench schema, with a database handle
 * that records every statement, and runs a class query through it. This yields exactly the SQL
 * the server runs for that query (compiler, ACL clause and all) without reading server logs.
 */
export async function larderStatements(url: string, schema: string, className: string, query: Record<string, string>): Promise<Sql[]> {
  // Loaded on demand: if Larder's internals change shape, only this check fails, not the bench.
  const { makeContext } = await import('../src/http/dispatch.ts');
  const { parseFindQuery } = await import('../src/http/find-params.ts');
  const { findObjects } = await import('../src/objects/find-objects.ts');
  const { openApp } = await import('../src/open-app.ts');
  const { openPostgres } = await import('../src/storage/postgres.ts');
  const db = await openPostgres({ url, schema, poolSize: 2, statementTimeoutMs: 30_000 });
  const seen: Sql[] = [];
  const recording: Database = {
    engine: db.engine,
    schema: db.schema,
    query: <R>(s: Sql) => {
      seen.push(s);
      return db.query<R>(s);
    },
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: <R>(s: Sql) => {
            seen.push(s);
            return tx.query<R>(s);
          },
        }),
      ),
    exec: (t) => db.exec(t),
    ping: () => db.ping(),
    close: () => db.close(),
  };
  try {
    const { app } = await openApp({ db: recording, keys: BENCH_KEYS, masterSignWindowMs: 60_000 });
    const caller = { credentials: { appId: BENCH_KEYS.appId, key: BENCH_KEYS.appKey }, production: true };
    const ctx = makeContext(app, caller, false, 'http://127.0.0.1');
    seen.length = 0; // only the query's own statements, not start-up's
    await findObjects(ctx, className, parseFindQuery(query));
    return [...seen];
  } finally {
    await db.close();
  }
}

async function explain(pool: pg.Pool, statement: Sql, noSeqScan: boolean): Promise<string> {
  const { text, values } = statement.toQuery();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if (noSeqScan) await client.query('SET LOCAL enable_seqscan = off');
    const res = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    return res.rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

/** EXPLAINs one of Larder's statements on the direct pool, with and without sequential scans. */
export async function explainStatement(pool: pg.Pool, statement: Sql, fieldIndexes: readonly string[]): Promise<PlanReport> {
  const plan = await explain(pool, statement, false);
  const planWithoutSeqScan = await explain(pool, statement, true);
  return {
    sql: statement.toQuery().text.replace(/\s+/g, ' '),
    plan,
    planWithoutSeqScan,
    fieldIndexesUsed: fieldIndexes.filter((name) => new RegExp(`\\b(on|using) "?${name}"?(\\s|$)`, 'm').test(planWithoutSeqScan)),
    filterFunctions: filterFunctions(plan),
  };
}

/** Names of the indexes on `table` whose definition mentions `field` (what `index add` made). */
export async function fieldIndexNames(pool: pg.Pool, table: string, field: string): Promise<string[]> {
  const { rows } = await pool.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexdef LIKE $2`,
    [table, `%'${field}'%`],
  );
  return rows.map((r) => r.indexname);
}
