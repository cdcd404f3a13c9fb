/**
 * Matching on the database: a subscription's where is compiled by the same compiler as a
 * query's (the planner's planMatch, against the class schema) and evaluated against the
 * object's row before and after the write, given as a one-row derived table with the class
 * table's columns. The answer is therefore the query's answer by construction: no second
 * implementation of the where language exists. One statement evaluates every distinct where of
 * the class against both rows.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { type Condition, planMatch } from '../../../module-api/reads.ts';
import { type ClassSchema, ident, join, sql, type Sql } from '../../../module-api/data.ts';
import type { RowValues } from './object-state.ts';

/** One where to evaluate: its key, its condition, and the readers of its inner ACL checks. */
export interface WhereToEvaluate {
  readonly key: string;
  readonly condition: Condition;
  /** Principals for `$relatedTo` owner checks (null: none needed). */
  readonly readers: readonly string[] | null;
}

/** Wheres per statement: keeps the statement and its parameter count bounded. */
const WHERES_PER_STATEMENT = 200;

/** A schema for a class that has no row in the catalogue yet: every field unknown. */
function emptySchema(className: string): ClassSchema {
  return { name: className, fields: {} };
}

function rowSelect(k: number, r: RowValues): Sql {
  return sql`SELECT ${k}::int AS k, ${r.objectId}::text AS "objectId", ${r.createdAt}::timestamptz AS "createdAt", ${r.updatedAt}::timestamptz AS "updatedAt",
    ${r.acl === null ? null : JSON.stringify(r.acl)}::jsonb AS acl, ${r.rperm}::text[] AS rperm, ${r.wperm}::text[] AS wperm, ${JSON.stringify(r.data)}::jsonb AS data`;
}

/**
 * Evaluates wheres against rows. Returns, per where key, one boolean per row (in the order of
 * `rows`). A where that does not compile against the class (a type the schema refuses) matches
 * nothing, as the query would have failed.
 */
export async function evaluateWheres(app: AppContext, className: string, rows: readonly RowValues[], wheres: readonly WhereToEvaluate[]): Promise<Map<string, boolean[]>> {
  const out = new Map<string, boolean[]>();
  if (rows.length === 0 || wheres.length === 0) return out;
  const schema = (await app.classes.find(className)) ?? emptySchema(className);
  const compiled: { key: string; condition: Sql }[] = [];
  for (const w of wheres) {
    try {
      compiled.push({ key: w.key, condition: planMatch(app, schema, w.condition, w.readers) });
    } catch {
      out.set(w.key, rows.map(() => false));
    }
  }
  for (let i = 0; i < compiled.length; i += WHERES_PER_STATEMENT) {
    const part = compiled.slice(i, i + WHERES_PER_STATEMENT);
    const tests = join(part.map((c) => sql`coalesce((${c.condition}), false)`), ', ');
    const result = await app.db.query<{ k: number; m: boolean[] }>(sql`SELECT k, ARRAY[${tests}]::boolean[] AS m FROM ${unionOf(rows)} AS ${ident(className)} ORDER BY k`);
    part.forEach((c, j) => out.set(c.key, result.map((r) => r.m[j] === true)));
  }
  return out;
}

function unionOf(rows: readonly RowValues[]): Sql {
  return sql`(${join(rows.map((r, k) => (k === 0 ? rowSelect(k, r) : sql`UNION ALL ${rowSelect(k, r)}`)), ' ')})`;
}
