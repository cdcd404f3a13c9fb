import type { Sql } from '../sql/fragment.ts';

/**
 * Statements worth keeping prepared on PostgreSQL connections: hot, fixed-shape ones (get by
 * id, a single-object insert, an update by id without `where`) whose text depends only on the
 * class (and, for an update, on which fields it changes how). A prepared statement skips
 * parsing and planning after its first runs, which halves the server-side cost of a get by id.
 * Statements built from client queries (find) are marked only through preparedShape(), when the
 * planner judged their shape safe for a generic plan (plan/reusable-shape.ts), and only up to
 * MAX_SHAPE_TEXTS of them: their shapes are unbounded.
 */
const marked = new WeakSet<Sql>();
const shapes = new WeakSet<Sql>();

/** Marks a statement for preparation (on both engines: PGlite runs it through pglite-worker.mjs preparedQuery). */
export function prepared(statement: Sql): Sql {
  marked.add(statement);
  return statement;
}

/** Whether a statement was marked by prepared() (not by preparedShape()). */
export function isPrepared(statement: Sql): boolean {
  return marked.has(statement);
}

/**
 * Most distinct prepared texts per process. Each one is prepared once per pooled connection
 * and kept by PostgreSQL for the connection's life; the marked statements are a few per class
 * (at most 500 classes), so this bound is only a guard against an unforeseen source of texts.
 */
export const MAX_PREPARED_TEXTS = 2000;

/**
 * Most distinct client-query texts (find pages) prepared per process. PostgreSQL keeps about
 * 50 KB per prepared page statement and connection (its query tree and generic plan); 64 texts
 * bound that at about 3 MB per connection. The first 64 shapes an app asks for are the ones kept:
 * an app's hot queries come early and again, and any later shape runs unprepared as before.
 */
export const MAX_SHAPE_TEXTS = 64;

/** Marks a client-query statement for preparation, counted against MAX_SHAPE_TEXTS. */
export function preparedShape(statement: Sql): Sql {
  shapes.add(statement);
  return statement;
}

/** Whether a statement was marked by preparedShape() (tests: which queries run prepared). */
export function isPreparedShape(statement: Sql): boolean {
  return shapes.has(statement);
}

const names = new Map<string, string>();
let shapeTexts = 0;

/**
 * The statement name under which a statement runs prepared: undefined for a statement that is
 * not marked, or whose text is new once its guard is reached. Names are stable per text.
 */
export function statementName(statement: Sql, text: string): string | undefined {
  const shape = shapes.has(statement);
  if (!shape && !marked.has(statement)) return undefined;
  const known = names.get(text);
  if (known !== undefined || names.size >= MAX_PREPARED_TEXTS || (shape && shapeTexts >= MAX_SHAPE_TEXTS)) return known;
  if (shape) shapeTexts++;
  const name = `larder_${names.size}`;
  names.set(text, name);
  return name;
}
