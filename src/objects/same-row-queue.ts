/**
 * Combines concurrent work on one key (one row's field, or one class's creates) into groups, with
 * at most `maxInFlight` groups in flight per key in this process (one for a row). A submission
 * that finds fewer in flight starts at once, alone (no added latency); submissions that arrive
 * while that many are in flight wait and go together as the next group when one ends. So N
 * concurrent writers of one hot row cost about one statement per round trip instead of N
 * statements queueing on the row lock, and several processes contend with one statement each at
 * most (docs/benchmarks.md: hot-row increments).
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

/** One key's state: groups in flight, and who waits for the next group. */
interface KeyState<I, O> {
  inFlight: number;
  readonly waiting: Waiter<I, O>[];
}

export class SameRowQueue<I, O> {
  /** Keys with a group in flight. */
  private readonly keys = new Map<string, KeyState<I, O>>();

  /**
   * @param maxGroup most inputs in one group (the rest wait for the group after).
   * @param maxInFlight most groups of one key running at once (1 for a row: its lock serialises
   *   them anyway). With more, up to that many submissions start at once, alone, as they would
   *   without the queue; only those beyond wait and go together (combine-creates.ts).
   */
  constructor(
    private readonly maxGroup: number,
    private readonly maxInFlight = 1,
    /**
     * With it, a submission that finds at least `busy.inFlight` groups in flight starts alone only
     * while fewer than `busy.pending` submissions of its key are in flight or waiting, and waits
     * otherwise: few concurrent writers still run alone (up to maxInFlight), many go in fewer,
     * larger groups (combine-increments.ts: random-row Increments).
     */
    private readonly busy?: { readonly inFlight: number; readonly pending: number },
  ) {}

  /**
   * Runs `input` in a group of `key`. The group is run by its first member's `run`, so every
   * submission with one key must be able to run any other's input (the key says what they share).
   */
  submit(key: string, input: I, run: RunGroup<I, O>): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const waiter: Waiter<I, O> = { input, run, resolve, reject };
      let state = this.keys.get(key);
      if (!state) {
        state = { inFlight: 0, waiting: [] };
        this.keys.set(key, state);
      }
      if (state.inFlight >= this.maxInFlight || (this.busy && state.inFlight >= this.busy.inFlight && state.inFlight + state.waiting.length >= this.busy.pending)) {
        state.waiting.push(waiter);
        return;
      }
      state.inFlight++;
      void this.drain(key, state, [waiter]);
    });
  }

  /** Keys with a group in flight (for tests). */
  get busyKeys(): number {
    return this.keys.size;
  }

  /** Submissions of `key` waiting for the next group (for tests). */
  waiting(key: string): number {
    return this.keys.get(key)?.waiting.length ?? 0;
  }

  private async drain(key: string, state: KeyState<I, O>, first: Waiter<I, O>[]): Promise<void> {
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
      if (state.waiting.length === 0) {
        if (--state.inFlight === 0) this.keys.delete(key);
        return;
      }
      group = state.waiting.splice(0, this.maxGroup);
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
