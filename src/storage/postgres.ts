import pg from 'pg';
import type { Sql } from '../sql/fragment.ts';
import type { Database, Queryable } from './database.ts';
import { translateDriverError } from './driver-errors.ts';
import { dbPoolWaits, dbPoolWaitSeconds } from '../metrics/core-metrics.ts';
import { startPgListener, type PgListener } from './pg-listener.ts';
import { isNarrowRead, NARROW_RANDOM_PAGE_COST } from './narrow-reads.ts';
import { PgStatement, type RowsCallback } from './pg-statement.ts';
import { statementName } from './prepared-statements.ts';

/** Options for the PostgreSQL engine. */
export interface PostgresOptions {
  url: string;
  schema: string;
  poolSize: number;
  /** Per-statement timeout in ms, so no query can run unbounded. */
  statementTimeoutMs: number;
  /** Most connections for narrow reads (narrow-reads.ts); default poolSize. */
  narrowPoolSize?: number;
}

// Return int8 and numeric as JS numbers: counts and JSON numbers stay numbers on the wire.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));
// timestamptz stays a string; encode.ts formats it.
pg.types.setTypeParser(1184, (v) => v);

/** pg's Pool and PoolClient take a Submittable with a callback (typed there without one). */
interface CallbackQueryable {
  query(statement: PgStatement, callback: RowsCallback): void;
}

/** Runs a statement through the extended protocol as a PgStatement (pg-statement.ts). */
function runStatement<R>(client: pg.Pool | pg.PoolClient, name: string | undefined, text: string, values: unknown[]): Promise<R[]> {
  return new Promise<R[]>((resolve, reject) => {
    (client as unknown as CallbackQueryable).query(new PgStatement(name, text, values), (err, rows) => (err ? reject(err) : resolve(rows as R[])));
  });
}

async function run<R>(client: pg.Pool | pg.PoolClient, statement: Sql): Promise<R[]> {
  const { text, values } = statement.toQuery();
  // Marked statements run as named prepared statements (planned once per connection).
  const name = statementName(statement, text);
  try {
    // Without a name or parameters pg sends a simple query; that stays pg's.
    if (name === undefined && values.length === 0) return (await client.query(text)).rows as R[];
    return await runStatement<R>(client, name, text, values);
  } catch (err) {
    throw translateDriverError(err);
  }
}

/** Every connection works inside the app's schema, with a hard ceiling on statement time. */
function sessionOptions(opts: PostgresOptions): string {
  return `-c search_path=${opts.schema},public -c statement_timeout=${opts.statementTimeoutMs} -c TimeZone=UTC`;
}

/** Opens a PostgreSQL pool whose connections use the app's schema. */
export async function openPostgres(opts: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    options: sessionOptions(opts),
  });
  // An idle client that errors (e.g. the server restarts) must not crash the process.
  pool.on('error', () => {});
  // Narrow reads (narrow-reads.ts) on connections of their own, planned with a low
  // random_page_cost; opened when the first one comes, at most one per heavy-lane slot (every
  // narrow read is a page statement, so at most that many run at once).
  let narrowPool: pg.Pool | undefined;
  const narrow = (): pg.Pool => {
    if (narrowPool) return narrowPool;
    narrowPool = new pg.Pool({
      connectionString: opts.url,
      max: opts.narrowPoolSize ?? opts.poolSize,
      options: `${sessionOptions(opts)} -c random_page_cost=${NARROW_RANDOM_PAGE_COST}`,
    });
    narrowPool.on('error', () => {});
    narrowPool.on('connect', (client) => client.on('error', () => {}));
    return narrowPool;
  };
  // Nor may a checked-out one between two statements (inside a transaction, a pinned
  // connection): pg emits the server's termination on the client itself, and the pool listens
  // only to idle clients. The next statement on it fails (503) and it is not reused.
  pool.on('connect', (client) => client.on('error', () => {}));
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
  let closed = false;
  const listeners: PgListener[] = [];
  const mustWait = () => pool.idleCount === 0 && pool.totalCount >= opts.poolSize;
  // Connecting fails like statements do when the server is down (503).
  const connect = () => pool.connect().catch((err: unknown) => Promise.reject(translateDriverError(err)));
  /** A connection for a statement that found the pool busy: counted and timed (/metrics). */
  const connectAfterWait = async (): Promise<pg.PoolClient> => {
    dbPoolWaits.inc();
    const done = dbPoolWaitSeconds.startTimer();
    try {
      return await connect();
    } finally {
      done();
    }
  };
  return {
    engine: 'postgres',
    schema: opts.schema,
    query: async (statement) => {
      if (isNarrowRead(statement)) return run(narrow(), statement);
      if (!mustWait()) return run(pool, statement);
      const client = await connectAfterWait();
      let failed: Error | undefined;
      try {
        return await run(client, statement);
      } catch (err) {
        // As pg's pool.query does: a connection whose statement failed is not reused.
        failed = err instanceof Error ? err : new Error(String(err));
        throw err;
      } finally {
        client.release(failed);
      }
    },
    poolStats: () => (closed ? undefined : { size: opts.poolSize, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    narrowPoolStats: () => (closed ? undefined : {
      size: opts.narrowPoolSize ?? opts.poolSize,
      total: narrowPool?.totalCount ?? 0,
      idle: narrowPool?.idleCount ?? 0,
      waiting: narrowPool?.waitingCount ?? 0,
    }),
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      // Connecting, BEGIN and COMMIT fail like statements do when the server is down (503).
      const client = mustWait() ? await connectAfterWait() : await connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work({ query: (s) => run(client, s) });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw translateDriverError(err);
      } finally {
        // A connection that could not even roll back is dropped, not handed to the next caller.
        client.release(broken);
      }
    },
    async exec(text) {
      await pool.query(text);
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async listen(channel, onMessage, onReset) {
      const listener = await startPgListener({ url: opts.url, channel, onMessage, onReset });
      listeners.push(listener);
      return async () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
        await listener.close();
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(listeners.map((l) => l.close()));
      await Promise.all([pool.end(), narrowPool?.end()]);
    },
  };
}
