/**
 * Tables that an optional module owns, created idempotently the first time the module touches a
 * database: under one advisory lock per module and schema (two processes starting together must
 * not race on CREATE ... IF NOT EXISTS), once per database handle.
 */
import { sql, type Sql } from '../sql/fragment.ts';
import type { Database } from './database.ts';

/** Returns `ensure(db)`: runs the statements once per database handle, retried after a failure. */
export function moduleTables(lockName: string, statements: readonly Sql[]): (db: Database) => Promise<void> {
  const ready = new WeakMap<Database, Promise<void>>();
  const create = (db: Database): Promise<void> =>
    db.transaction(async (tx) => {
      await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${`larder.${lockName}.tables.${db.schema}`}))`);
      for (const s of statements) await tx.query(s);
    });
  return (db) => {
    let p = ready.get(db);
    if (!p) {
      p = create(db);
      // A failure (database down) must not stick: the next call tries again.
      p.catch(() => ready.delete(db));
      ready.set(db, p);
    }
    return p;
  };
}
