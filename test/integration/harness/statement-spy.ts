import type { Sql } from '../../../src/sql/fragment.ts';
import type { Database } from '../../../src/storage/database.ts';

/** Runs `work` and returns every statement the app sent to the database meanwhile. */
export async function captured(db: Database, work: () => Promise<unknown>): Promise<Sql[]> {
  const original = db.query;
  const seen: Sql[] = [];
  // A spy, not a mock: every statement still runs on the real database.
  db.query = ((statement: Sql) => {
    seen.push(statement);
    return original.call(db, statement);
  }) as Database['query'];
  try {
    await work();
  } finally {
    db.query = original;
  }
  return seen;
}
