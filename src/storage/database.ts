import type { Sql } from '../sql/fragment.ts';

/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** Something that runs SQL: the database itself or one transaction on it. */
export interface Queryable {
  /** Runs one statement and returns its rows. */
  query<R = Row>(statement: Sql): Promise<R[]>;
}

/** The engine-neutral database handle. Both engines speak PostgreSQL's dialect. */
export interface Database extends Queryable {
  /** Which engine this is: shown at start-up and in /health. */
  readonly engine: 'pglite' | 'postgres';
  /** The schema that holds this app's tables. */
  readonly schema: string;
  /** Runs `work` in one transaction; rolls back if it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs raw SQL text with no parameters (migrations only). */
  exec(text: string): Promise<void>;
  /** Readiness probe: resolves when the database answers. */
  ping(): Promise<void>;
  /**
   * Calls `onMessage` with the payload of every notification on `channel` (`pg_notify`): LISTEN
   * on a dedicated connection that reconnects on PostgreSQL, in-process on PGlite. `onReset`
   * runs after a reconnect, when notifications may have been missed. Stopped by close(), or
   * alone by the function it resolves to (an app closing while the database stays open).
   * Optional so that wrapping handles (recorders in tools) need not implement it.
   */
  listen?(channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<() => Promise<void>>;
  /** Closes connections; idempotent. */
  close(): Promise<void>;
  /** The connection pool's use now (PostgreSQL; undefined once closed), for /metrics. */
  poolStats?(): PoolStats | undefined;
  /**
   * The narrow reads' own connections (narrow-reads.ts; PostgreSQL; undefined once closed), for
   * /metrics. Opened when the first narrow read comes, so `total` stays 0 until then.
   */
  narrowPoolStats?(): PoolStats | undefined;
}

/** A connection pool's use at one moment. */
export interface PoolStats {
  /** The configured size (LARDER_POOL_SIZE; the narrow reads': LARDER_HEAVY_QUERY_SLOTS). */
  size: number;
  /** Connections open, idle ones included. */
  total: number;
  idle: number;
  /** Requests queued for a connection. */
  waiting: number;
}
