import type { Sql } from '../sql/fragment.ts';

/**
 * Statements worth keeping prepared on PostgreSQL connections: hot, fixed-shape ones (get by
 * id, a single-object insert, an update by id without `where`) whose text depends only on the
 * class (and, for an update, on which fields it changes how). A prepared statement skips
 * parsing and planning after its first runs, which halves the server-side cost of a get by id.
 * Statements built from client queries (find) are not marked: their shapes are unbounded, and
 * a generic plan can be much worse than a custom one for range conditions.
 */
const marked = new WeakSet<Sql>();

/** Marks a statement for preparation (on both engines: PGlite runs it through pglite-worker.mjs preparedQuery). */
export function prepared(statement: Sql): Sql {
  marked.add(statement);
  return statement;
}

/** Whether a statement was marked by prepared(). */
export function isPrepared(statement: Sql): boolean {
  return marked.has(statement);
}

/**
 * Most distinct prepared texts per process. Each one is prepared once per pooled connection
 * and kept by PostgreSQL for the connection's life; the marked statements are a few per class
 * (at most 500 classes), so this bound is only a guard against an unforeseen source of texts.
 */
export const MAX_PREPARED_TEXTS = 2000;

const names = new Map<string, string>();

/** A stable statement name for a marked text, or undefined once the guard is reached. */
export function statementName(text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined || names.size >= MAX_PREPARED_TEXTS) return known;
  const name = `larder_${names.size}`;
  names.set(text, name);
  return name;
}
