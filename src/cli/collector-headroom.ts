import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * The old generation's growing factor of a server process, in V8's terms: the next full
 * collection starts once the heap holds (1 + this / 100) times what the last one kept.
 *
 * Why: every request body reaches JavaScript as a fresh Buffer per socket read (Node's HTTP
 * parser copies each piece), and V8 counts such external bytes allocated since the last full
 * collection against the old generation's limit, until a scavenge frees them; it forces one only
 * after 32 MiB of them. On a server that allocates little else, V8 sets that limit to what the
 * last full collection kept plus about 10 MB (factor 1.1 and its minimum step), so 1 MiB uploads
 * started a full marking of Larder's ~23 MB heap every ~10 uploads, for ever after the first:
 * about a third of the server's CPU per upload (docs/benchmarks.md, "Files"). With a factor of
 * 3 the slack is larger than the 32 MiB after which the scavenge comes anyway.
 */
export const HEAP_GROWING_PERCENT = 200;

/**
 * Where V8 itself lets the heap grow up to 4 times between full collections (a heap limit of at
 * least 1 GiB on 64-bit): a fixed 3 stays within its own range. Smaller heaps (small machines,
 * --max-old-space-size below that) keep V8's tighter factors.
 */
export const MIN_HEAP_LIMIT_BYTES = 1024 ** 3;

/**
 * The V8 flag to set for a server process, or undefined to leave V8 as it is (small heap, or the
 * operator chose a factor on the command line or in NODE_OPTIONS, which execArgv does not show).
 */
export function collectorHeadroomFlag(execArgv: readonly string[], heapLimitBytes: number, nodeOptions = ''): string | undefined {
  if (heapLimitBytes < MIN_HEAP_LIMIT_BYTES) return undefined;
  const chosen = (a: string): boolean => a.includes('heap-growing-percent') || a.includes('heap_growing_percent');
  if (execArgv.some(chosen) || chosen(nodeOptions)) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets the growing factor for this process (read by V8 at every full collection's end). */
export function giveCollectorHeadroom(): void {
  const flag = collectorHeadroomFlag(process.execArgv, getHeapStatistics().heap_size_limit, process.env.NODE_OPTIONS);
  if (flag) setFlagsFromString(flag);
}
