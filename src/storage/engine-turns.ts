/**
 * Turns on the embedded engine's one connection (pglite-host.ts): one holder at a time, waiters
 * in arrival order, except that a heavy statement (a class query, heavy-lane.ts) lets cheap ones
 * that wait go first. So after a heavy statement is cut by the slice, the get by id that waited
 * runs as soon as the engine is back, not after the next heavy query, which queued while the
 * engine reopened and would hold it for another slice (measured in embedded-engine-bounds.test.ts:
 * with arrival order, GETs behind looping heavy queries waited for two reopens instead of one).
 *
 * A heavy waiter lets at most MAX_OVERTAKEN cheap statements pass; then it is served in arrival
 * order, so a steady stream of cheap statements cannot starve class queries. Counted in turns,
 * not time, so that a busy machine (a reopen taking seconds) changes nothing.
 */

/** How many cheap statements may go before one waiting heavy statement. */
export const MAX_OVERTAKEN = 64;

export class EngineTurns {
  private readonly waiting: { heavy: boolean; overtaken: number; go: () => void }[] = [];
  private held = false;

  /** Someone holds the engine. */
  get busy(): boolean {
    return this.held;
  }

  /** How many wait for it. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Takes the engine: undefined when it was free, else resolves when this caller's turn comes. */
  take(heavy: boolean): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise((go) => this.waiting.push({ heavy, overtaken: 0, go }));
  }

  /**
   * Passes the engine to the next waiter: the first that is cheap or has been overtaken
   * MAX_OVERTAKEN times, else the first; false when none waits (the engine is free).
   */
  pass(): boolean {
    if (this.waiting.length === 0) {
      this.held = false;
      return false;
    }
    let next = this.waiting.findIndex((w) => !w.heavy || w.overtaken >= MAX_OVERTAKEN);
    if (next < 0) next = 0;
    for (let i = 0; i < next; i++) this.waiting[i].overtaken++;
    this.waiting.splice(next, 1)[0].go();
    return true;
  }
}
