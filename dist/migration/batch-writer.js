/**
 * Writes records in batches with a few batches in flight: reading the next lines overlaps with
 * the database writing the previous ones, and PostgreSQL works on several batches at once.
 * `submit` waits while `concurrency` batches are running, which also bounds memory: at most
 * (concurrency + 1) batches of records exist at any time. In a dry run nothing is written: each
 * record is only validated (prepareRow) and counted as it would be inserted.
 */
import { prepareRow, RecordError } from './prepare-row.js';
import { countSkip, countWrite } from './import-stats.js';
import { writeObjects } from './write-objects.js';
function validateOnly(className, records, now) {
    const skipped = [];
    const dropped = {};
    records.forEach((r, index) => {
        try {
            for (const d of prepareRow(className, r, now).dropped)
                dropped[`${d.field}: ${d.reason}`] = (dropped[`${d.field}: ${d.reason}`] ?? 0) + 1;
        }
        catch (err) {
            if (!(err instanceof RecordError))
                throw err;
            skipped.push({ index, reason: err.message });
        }
    });
    return { received: records.length, inserted: records.length - skipped.length, updated: 0, unchanged: 0, skipped, dropped };
}
/** Runs batches concurrently; the first infrastructure failure stops it (thrown by submit/drain). */
export class BatchWriter {
    opts;
    running = new Set();
    failure;
    failed = false;
    constructor(opts) {
        this.opts = opts;
    }
    /** Starts writing a batch once a slot is free. */
    async submit(batch) {
        this.rethrow();
        while (this.running.size >= this.opts.concurrency)
            await Promise.race(this.running);
        this.rethrow();
        const p = this.write(batch)
            .catch((err) => {
            if (!this.failed)
                [this.failed, this.failure] = [true, err];
        })
            .finally(() => this.running.delete(p));
        this.running.add(p);
    }
    /** Waits for every batch; throws the first failure. */
    async drain() {
        while (this.running.size)
            await Promise.all([...this.running]);
        this.rethrow();
    }
    rethrow() {
        if (this.failed)
            throw this.failure;
    }
    async write(batch) {
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
//# sourceMappingURL=batch-writer.js.map