/**
 * Writes records in batches with a few batches in flight: reading the next lines overlaps with
 * the database writing the previous ones, and PostgreSQL works on several batches at once.
 * `submit` waits while `concurrency` batches are running, which also bounds memory: at most
 * (concurrency + 1) batches of records exist at any time. In a dry run nothing is written: each
 * record is only validated (prepareRow) and counted as it would be inserted.
 */
import { prepareRow, RecordError } from './prepare-row.ts';
import { countSkip, countWrite, type ClassStats, type ImportEvents } from './import-stats.ts';
import { writeObjects, type ImportTarget, type SkippedRecord, type WriteSummary } from './write-objects.ts';

/** Records of one class, each with its place in the input (`file:line`). */
export interface Batch {
  readonly className: string;
  readonly records: unknown[];
  readonly places: string[];
}

/** What the writer needs. */
export interface BatchWriterOptions {
  /** Absent in a dry run. */
  readonly target?: ImportTarget;
  readonly concurrency: number;
  readonly events: ImportEvents;
  readonly statsOf: (className: string) => ClassStats;
  /** Timestamp for records with no createdAt/updatedAt. */
  readonly now: string;
}

function validateOnly(className: string, records: readonly unknown[], now: string): WriteSummary {
  const skipped: SkippedRecord[] = [];
  const dropped: Record<string, number> = {};
  records.forEach((r, index) => {
    try {
      for (const d of prepareRow(className, r, now).dropped) dropped[`${d.field}: ${d.reason}`] = (dropped[`${d.field}: ${d.reason}`] ?? 0) + 1;
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      skipped.push({ index, reason: err.message });
    }
  });
  return { received: records.length, inserted: records.length - skipped.length, updated: 0, unchanged: 0, skipped, dropped };
}

/** Runs batches concurrently; the first infrastructure failure stops it (thrown by submit/drain). */
export class BatchWriter {
  private readonly running = new Set<Promise<void>>();
  private failure: unknown;
  private failed = false;

  constructor(private readonly opts: BatchWriterOptions) {}

  /** Starts writing a batch once a slot is free. */
  async submit(batch: Batch): Promise<void> {
    this.rethrow();
    while (this.running.size >= this.opts.concurrency) await Promise.race(this.running);
    this.rethrow();
    const p: Promise<void> = this.write(batch)
      .catch((err: unknown) => {
        if (!this.failed) [this.failed, this.failure] = [true, err];
      })
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }

  /** Waits for every batch; throws the first failure. */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
    this.rethrow();
  }

  private rethrow(): void {
    if (this.failed) throw this.failure;
  }

  private async write(batch: Batch): Promise<void> {
    const { target, now, events } = this.opts;
    const summary = target ? await writeObjects(target, batch.className, batch.records, { now }) : validateOnly(batch.className, batch.records, now);
    const stats = this.opts.statsOf(batch.className);
    countWrite(stats, summary);
    for (const s of summary.skipped) {
      countSkip(stats, s.reason);
      events.recordError(batch.places[s.index] ?? batch.className, s.objectId ? `${s.reason} (objectId ${s.objectId})` : s.reason);
    }
  }
}
