/**
 * How many statements of one kind of grouped write (a class's creates: combine-creates.ts; lone
 * Increments of a class's field: combine-increments.ts) one process runs at once before later
 * writes of that kind wait and go together. The caps of those files are for the whole server: the
 * grouping saves PostgreSQL's per-statement cost only when writes wait, and with `--workers 2`
 * and a cap of 8 in each process, 32 clients left 16 statements in flight and about half as many
 * waiting writes per statement, so PostgreSQL's CPU per random Increment was 1.5 times one
 * process's (docs/benchmarks.md, "Writes in groups with several workers"). So each process keeps
 * its share; at least 2, so that two clients of one process never wait for each other.
 */
export function slotsOfProcess(serverSlots: number, processes = 1): number {
  return shareOfProcess(serverSlots, processes, 2);
}

/**
 * One process's share of a count meant for the whole server (`processes` serve the app, each
 * receiving about as many clients: node:cluster hands out connections in turn), at least `least`.
 * combine-increments.ts gives its thresholds for grouping lone Increments this way: with each of
 * two processes applying the whole server's, each process's statements carried half as many rows
 * and PostgreSQL spent 1.5-1.7 times one process's CPU per random Increment (docs/benchmarks.md,
 * "Two workers' random increments: the grouping thresholds per process").
 */
export function shareOfProcess(serverCount: number, processes = 1, least = 1): number {
  return Math.max(least, Math.ceil(serverCount / Math.max(1, processes)));
}

/**
 * A process's share of a grouped write's "busy" thresholds (same-row-queue.ts `busy`), which are
 * meant for the whole server: once `inFlight` statements of a kind run, a write also waits when
 * `pending` or more of its kind are in flight or waiting. At least `leastPending` pending per
 * process, so that that many clients of one process never wait for each other (with two workers,
 * 2 pending made groups of two out of eight clients, which cost PostgreSQL more than lone
 * statements: docs/benchmarks.md, "Two workers' random increments").
 */
export function busyOfProcess(inFlight: number, pending: number, processes = 1, leastPending = 1): { inFlight: number; pending: number } {
  return { inFlight: shareOfProcess(inFlight, processes), pending: shareOfProcess(pending, processes, leastPending) };
}
