/**
 * The thumbnails one process makes at once (docs/files.md, "Thumbnails"). Each render holds a
 * decoded image in memory and a core busy, so at most `slots` run; up to `queue` more wait for
 * one, each at most `waitMs`. A render that finds the queue full, or waits longer, is refused:
 * the client retries later instead of the process piling up work it cannot finish in time
 * (a client asking for a new size with every request would otherwise queue renders without end).
 */

/** How many renders run and wait. */
export interface RenderSlotLimits {
  /** Renders running at once. */
  slots: number;
  /** Renders that may wait for a slot; more are refused at once. */
  queue: number;
  /** Longest wait for a slot, ms; a render still waiting then is refused. */
  waitMs: number;
}

interface Waiter {
  go(): void;
}

/** A counting semaphore with a bounded queue and a bounded wait. */
export class RenderSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Renders being made or waiting, by what they make (a thumbnail's cache path): later requests for one share it. */
  readonly inProgress = new Map<string, Promise<Buffer>>();

  /** `refused` makes the error a refused render rejects with. */
  constructor(private readonly limits: RenderSlotLimits, private readonly refused: () => Error) {}

  /** Runs `work` in a slot; rejects with `refused()` when no slot is free in time (work not started). */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Renders running and waiting now (metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.slots) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.limits.queue) return Promise.reject(this.refused());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        go: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(this.refused());
      }, this.limits.waitMs);
      this.waiting.push(waiter);
    });
  }

  /** Hands the slot to the longest waiter (the count stays), else frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.go();
    else this.running--;
  }
}
