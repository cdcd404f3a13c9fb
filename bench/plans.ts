import type pg from 'pg';
import { BENCH_CLASS, categoryName, RANGE_LIMIT } from './bench-data.ts';
import { explainStatement, fieldIndexNames, larderStatements, type PlanReport } from './plan-check.ts';

/** A captured plan of one of Larder's statements. */
export interface CapturedPlan {
  key: 'count' | 'range';
  title: string;
  plan: PlanReport;
}

const QUERIES: { key: CapturedPlan['key']; title: string; field: string; query: Record<string, string>; pick: RegExp }[] = [
  {
    key: 'count',
    title: 'Count with $in (limit=0&count=1)',
    field: 'category',
    query: { where: JSON.stringify({ category: { $in: [categoryName(1), categoryName(2), categoryName(3)] } }), limit: '0', count: '1' },
    pick: /^\s*SELECT count\(/i,
  },
  {
    key: 'range',
    title: 'Range query on the indexed field (order=-score, limit=20)',
    field: 'score',
    query: { where: JSON.stringify({ score: { $gte: 40_000, $lt: 41_000 } }), order: '-score', limit: String(RANGE_LIMIT) },
    pick: /ORDER BY/i,
  },
];

/**
 * Captures the SQL Larder runs for the count-with-$in and range workloads and EXPLAINs it. A
 * failure is logged and leaves the plan out; the count row then reports that it could not be
 * checked instead of passing.
 */
export async function capturePlans(url: string, schema: string, pool: pg.Pool, log: (line: string) => void = console.error): Promise<CapturedPlan[]> {
  const out: CapturedPlan[] = [];
  for (const q of QUERIES) {
    try {
      const statements = await larderStatements(url, schema, BENCH_CLASS, q.query);
      const statement = statements.find((s) => q.pick.test(s.toQuery().text));
      if (!statement) throw new Error(`no matching statement among ${statements.length} captured`);
      const plan = await explainStatement(pool, statement, await fieldIndexNames(pool, BENCH_CLASS, q.field));
      out.push({ key: q.key, title: q.title, plan });
    } catch (err) {
      log(`bench: could not capture the plan of '${q.title}': ${(err as Error).message}`);
    }
  }
  return out;
}
