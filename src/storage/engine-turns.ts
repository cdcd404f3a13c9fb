/**
 * Turns on the embedded engine's one connection (pglite-host.ts): one holder at a time, waiters
 * in arrival order, except that a heavy statement (a class query, heavy-lane.ts) lets every
 * cheap one that waits go first. So after a heavy statement is cut by the slice, the get by id
 * that waited runs as soon as the engine is back, not after the next heavy query, which queued
 * while the engine reopened and would hold it for another slice (measured with
 * bench/heavy-queries.ts: a GET then waited for two slices and two reopens).
 *
 * A heavy statement lets cheap ones pass only during its first YIELD_MS of waiting (a reopen of
 * the engine takes 0.15 s of CPU, seconds on a busy machine): after that it is served in arrival
 * order, so a steady stream of cheap statements cannot starve class queries.
 */

/** How long a waiting heavy statement lets cheap ones go first, ms. */
export const YIELD_MS = 5000;

export class EngineTurns {
  private readonly waiting: { heavy: boolean; since: number; go: () => void }[] = [];
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
    return new Promise((go) => this.waiting.push({ heavy, since: Date.now(), go }));
  }

  /**
   * Passes the engine to the next waiter: the first that is cheap or has waited YIELD_MS, else
   * the first; false when none waits (the engine is free).
   */
  pass(): boolean {
    if (this.waiting.length === 0) {
      this.held = false;
      return false;
    }
    const yieldedSince = Date.now() - YIELD_MS;
    const first = this.waiting.findIndex((w) => !w.heavy || w.since <= yieldedSince);
    const [next] = this.waiting.splice(first < 0 ? 0 : first, 1);
    next.go();
    return true;
  }
}
