import type pg from 'pg';
import { BENCH_CLASS } from './bench-data.ts';

/** The outcome of comparing a counter's growth with the increments the server acknowledged. */
export interface CounterCheck {
  /** How much the stored counter grew during the run. */
  grew: number;
  /** Increments answered 2xx. */
  acknowledged: number;
  /** Increments written to the socket (timed runs stop with some still in flight). */
  sent: number;
  /** True when nothing acknowledged is missing and nothing unsent was counted. */
  ok: boolean;
  /** Exact runs (a fixed number of requests) must match to the unit. */
  exact: boolean;
}

/** The Bench.n counter of one object, read with SQL. */
export async function counterOf(pool: pg.Pool, objectId: string): Promise<number> {
  const { rows } = await pool.query<{ n: string | number | null }>(`SELECT data->>'n' AS n FROM "${BENCH_CLASS}" WHERE "objectId" = $1`, [objectId]);
  return Number(rows[0]?.n ?? 0);
}

/** The sum of Bench.n over every object. */
export async function counterSum(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string | number | null }>(`SELECT sum((data->>'n')::numeric) AS n FROM "${BENCH_CLASS}"`);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Checks that no acknowledged increment was lost. A timed run ends by closing sockets with up
 * to one request per connection in flight; the server may still apply those, so the growth may
 * exceed the acknowledged count by at most the unanswered ones. A run of a fixed number of
 * requests waits for every answer, so there the growth must equal the acknowledged count.
 */
export function checkCounter(before: number, after: number, acknowledged: number, sent: number, exact: boolean): CounterCheck {
  const grew = after - before;
  const ok = exact ? grew === acknowledged : grew >= acknowledged && grew <= sent;
  return { grew, acknowledged, sent, ok, exact };
}
