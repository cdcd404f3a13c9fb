import type { Sql } from '../../../src/sql/fragment.ts';
import type { Database } from '../../../src/storage/database.ts';

/**
 * Tables only the background pollers read on a timer (export jobs, scheduled functions): their
 * statements can land inside any window and are not the request's, so counting them made
 * statement-count assertions fail at random (a CI run saw the export worker's poll during an upload).
 */
const BACKGROUND_TABLES = /\b_larder_(export_jobs|schedules|schedule_runs)\b/;

/** Runs `work` and returns every statement the app sent to the database meanwhile, except the background pollers'. */
export async function captured(db: Database, work: () => Promise<unknown>): Promise<Sql[]> {
  const original = db.query;
  const seen: Sql[] = [];
  // A spy, not a mock: every statement still runs on the real database.
  db.query = ((statement: Sql) => {
    if (!BACKGROUND_TABLES.test(statement.toQuery().text)) seen.push(statement);
    return original.call(db, statement);
  }) as Database['query'];
  try {
    await work();
  } finally {
    db.query = original;
  }
  return seen;
}
