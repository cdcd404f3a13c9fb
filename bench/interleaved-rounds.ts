/**
 * Statement variants measured in interleaved rounds (bench/range-statement-cost.ts,
 * bench/include-owners-cost.ts): each round runs every variant `runs` times, one execution at a
 * time in a fresh random order each time, so that a statement's tail (work after its answer
 * reached the client) lands on whichever variant runs next rather than always on the same one.
 */

/** Per variant, the CPU (ns, as `measureOne` reports it) each round spent on its `runs` executions. */
export async function interleavedRounds(names: readonly string[], rounds: number, runs: number, measureOne: (name: string) => Promise<number>): Promise<Record<string, number[]>> {
  const per: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const sum: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
    for (let i = 0; i < runs; i++) {
      const order = [...names];
      for (let k = order.length - 1; k > 0; k--) {
        const j = Math.floor(Math.random() * (k + 1));
        [order[k], order[j]] = [order[j], order[k]];
      }
      for (const n of order) sum[n] += await measureOne(n);
    }
    for (const n of names) per[n].push(sum[n]);
  }
  return per;
}
