/**
 * Pushes already sent to this process's clients, on their way into the outbox: written in
 * order, in batches (whatever queued up while the previous batch was being written goes in one
 * statement), off the path of the pushes themselves. `settled()` is what must wait for the
 * rows: a login's replay of missed pushes and the deletion of acknowledged ones.
 */
import type { OutboxEvent } from '../store/event-outbox.ts';

interface Batch {
  readonly events: OutboxEvent[];
  readonly done: Promise<void>;
  readonly settle: () => void;
}

function newBatch(): Batch {
  let settle!: () => void;
  const done = new Promise<void>((r) => (settle = r));
  return { events: [], done, settle };
}

export class StoreQueue {
  private collecting: Batch | undefined;
  private last: Promise<void> = Promise.resolve();
  private running = false;

  constructor(
    private readonly write: (events: readonly OutboxEvent[]) => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Queues events; resolves once they are written (or their write failed, which is reported). */
  add(events: readonly OutboxEvent[]): Promise<void> {
    if (!this.collecting) {
      this.collecting = newBatch();
      this.last = this.collecting.done;
    }
    this.collecting.events.push(...events);
    const { done } = this.collecting;
    if (!this.running) void this.run();
    return done;
  }

  /** Resolves once everything queued so far is written. */
  settled(): Promise<void> {
    return this.last;
  }

  private async run(): Promise<void> {
    this.running = true;
    for (let batch = this.collecting; batch; batch = this.collecting) {
      this.collecting = undefined;
      try {
        await this.write(batch.events);
      } catch (err) {
        this.onError(err);
      }
      batch.settle();
    }
    // In the same tick as the last check: a batch queued after it starts a new run.
    this.running = false;
  }
}
