import { PGlite } from '@electric-sql/pglite';
import type { Sql } from '../sql/fragment.ts';
import type { Database, Queryable } from './database.ts';
import { translateDriverError } from './driver-errors.ts';

/** Options for the embedded engine. `dataDir` undefined means in memory (tests). */
export interface PgliteOptions {
  dataDir?: string;
  schema: string;
}

interface PgliteLike {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

async function run<R>(db: PgliteLike, statement: Sql): Promise<R[]> {
  const { text, values } = statement.toQuery();
  try {
    const res = await db.query<R>(text, values);
    return res.rows;
  } catch (err) {
    throw translateDriverError(err);
  }
}

/**
 * Opens PGlite (PostgreSQL compiled to WASM, in process). PGlite is one connection, so
 * transactions are serialised by PGlite itself; statements outside a transaction wait for it.
 */
export async function openPglite(opts: PgliteOptions): Promise<Database> {
  const db = await PGlite.create(opts.dataDir ?? 'memory://', {
    parsers: {
      20: (v: string) => Number(v),
      1700: (v: string) => Number(v),
      1184: (v: string) => v,
    },
  });
  await db.exec(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"; SET search_path = "${opts.schema}", public; SET TimeZone = 'UTC';`);
  let closed = false;
  return {
    engine: 'pglite',
    schema: opts.schema,
    query: (statement) => run(db, statement),
    transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work({ query: (s) => run(tx, s) }));
    },
    async exec(text) {
      await db.exec(text);
    },
    async ping() {
      await db.query('SELECT 1');
    },
    async listen(channel, onMessage) {
      // One PGlite is one process: its notifications are the in-process bus (delivered at commit).
      await db.listen(channel, onMessage);
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}
