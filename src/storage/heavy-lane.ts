/**
 * Capacity kept for cheap requests (issue 12 item 4). Class queries (find, count) are the
 * statements whose cost a client chooses: a `$regex` over a large class, a count of everything.
 * Without a bound, 32 of them at once hold every pooled PostgreSQL connection (or queue ahead of
 * everything on the single embedded connection) and a plain GET by id waits for all of them.
 *
 * Statements marked heavy() go through a lane of a few slots: at most that many run at once, the
 * rest wait here, outside the pool, so the other connections stay free for gets, writes and
 * logins. A heavy statement that waits longer than the statement timeout for a slot gets 124,
 * as it would had it run that long.
 */
import type { Sql } from '../sql/fragment.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Database } from './database.ts';
import { heavyLaneWaits } from '../metrics/core-metrics.ts';

const marked = new WeakSet<Sql>();

/** Marks a statement whose cost the client chooses (a class query): it runs in the heavy lane. */
export function heavy(statement: Sql): Sql {
  marked.add(statement);
  return statement;
}

/** Whether a statement was marked by heavy(). */
export function isHeavy(statement: Sql): boolean {
  return marked.has(statement);
}

/** A counting semaphore with a bounded wait. */
export class Lane {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly slots: number, private readonly maxWaitMs: number) {}

  /** Statements waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `work` in a slot; 124 when no slot frees up within the wait bound. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) await this.turn();
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; the count changes only when none waits.
      if (next) next();
      else this.running--;
    }
  }

  private turn(): Promise<void> {
    heavyLaneWaits.inc();
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
      this.waiting.push(go);
      const timer = this.maxWaitMs > 0 ? setTimeout(() => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new ApiError('timeout', `The request timed out on the server: it waited more than ${this.maxWaitMs} ms for one of the ${this.slots} slots of expensive queries.`));
      }, this.maxWaitMs) : undefined;
    });
  }
}

/** Wraps a database so that its heavy statements run in a lane of `slots` slots. */
export function withHeavyLane(db: Database, slots: number, maxWaitMs: number): Database {
  const lane = new Lane(slots, maxWaitMs);
  const query: Database['query'] = (statement) => (isHeavy(statement) ? lane.run(() => db.query(statement)) : db.query(statement));
  // Object.create keeps every other member (engine, transaction, listen, poolStats...) as it is.
  return Object.assign(Object.create(db) as Database, { query });
}
