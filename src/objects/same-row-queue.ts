/**
 * Combines concurrent work on one key (one row's field) into groups, with at most one group in
 * flight per key in this process. A submission that finds nothing in flight starts at once, alone
 * (no added latency); submissions that arrive while a group is in flight wait and go together as
 * the next group when it ends. So N concurrent writers of one hot row cost about one statement
 * per round trip instead of N statements queueing on the row lock, and several processes
 * contend with one statement each at most (docs/benchmarks.md: hot-row increments).
 */

/** The outcome of one input of a group: a value, or an error for that caller alone. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/** Runs one group; returns one outcome per input, in input order. */
export type RunGroup<I, O> = (inputs: readonly I[]) => Promise<readonly Settled<O>[]>;

interface Waiter<I, O> {
  readonly input: I;
  readonly run: RunGroup<I, O>;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class SameRowQueue<I, O> {
  /** Keys with a group in flight -> who waits for the next group. */
  private readonly waiting = new Map<string, Waiter<I, O>[]>();

  /** @param maxGroup most inputs in one group (the rest wait for the group after). */
  constructor(private readonly maxGroup: number) {}

  /**
   * Runs `input` in a group of `key`. The group is run by its first member's `run`, so every
   * submission with one key must be able to run any other's input (the key says what they share).
   */
  submit(key: string, input: I, run: RunGroup<I, O>): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const waiter: Waiter<I, O> = { input, run, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push(waiter);
        return;
      }
      this.waiting.set(key, []);
      void this.drain(key, [waiter]);
    });
  }

  /** Keys with a group in flight (for tests). */
  get busyKeys(): number {
    return this.waiting.size;
  }

  private async drain(key: string, first: Waiter<I, O>[]): Promise<void> {
    let group = first;
    for (;;) {
      let outcomes: readonly Settled<O>[] | undefined;
      let failure: unknown;
      try {
        outcomes = await group[0].run(group.map((w) => w.input));
      } catch (err) {
        failure = err;
      }
      group.forEach((w, i) => {
        const o = outcomes?.[i];
        if (!o) w.reject(outcomes ? new Error('same-row group returned too few outcomes') : failure);
        else if (o.ok) w.resolve(o.value);
        else w.reject(o.error);
      });
      const queue = this.waiting.get(key) ?? [];
      if (queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      group = queue.splice(0, this.maxGroup);
    }
  }
}

/** Runs a promise-returning function and settles its outcome (never throws). */
export async function settle<O>(work: () => Promise<O>): Promise<Settled<O>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error };
  }
}
