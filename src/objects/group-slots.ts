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
  return Math.max(2, Math.ceil(serverSlots / Math.max(1, processes)));
}
