/**
 * The benchmark's data model, shared by the seed, the HTTP workloads and the direct SQL so that
 * both sides read and write the same shapes: class Bench {score: Number (indexed), category:
 * String, n: Number, name: String, owner: Pointer<BenchOwner>}, class BenchOwner {name, level}.
 */

/** The class every workload reads and writes. */
export const BENCH_CLASS = 'Bench';
/** The class Bench.owner points to (the include workload reads it). */
export const OWNER_CLASS = 'BenchOwner';
/** Direct-side copies of the two classes, in the same schema and row format. */
export const DIRECT_BENCH_TABLE = 'direct_bench';
/** Direct-side copy of BenchOwner. */
export const DIRECT_OWNER_TABLE = 'direct_owner';

/** Scores are integers in [0, SCORE_SPAN). */
export const SCORE_SPAN = 100_000;
/** Width of a range query: with 10,000 objects about 100 match, of which the top 20 are returned. */
export const RANGE_WIDTH = 1000;
/** Distinct categories; a count with $in names COUNT_IN_SIZE of them (about 3% of the rows). */
export const CATEGORY_COUNT = 100;
/** Categories named in one count-with-$in. */
export const COUNT_IN_SIZE = 3;
/** BenchOwner objects created before seeding. */
export const OWNER_COUNT = 100;
/** Objects per batch request (the batch workload, and the seed when batch is available). */
export const BATCH_SIZE = 50;
/** Page size of the range query. */
export const RANGE_LIMIT = 20;

/** A random integer in [0, n). */
export function randomInt(n: number): number {
  return Math.floor(Math.random() * n);
}

/** A random element of a non-empty list. */
export function pick<T>(list: readonly T[]): T {
  return list[randomInt(list.length)];
}

/** The name of category i (`c00` .. `c99`). */
export function categoryName(i: number): string {
  return `c${String(i).padStart(2, '0')}`;
}

/** COUNT_IN_SIZE distinct random category names. */
export function randomCategories(): string[] {
  const set = new Set<string>();
  while (set.size < COUNT_IN_SIZE) set.add(categoryName(randomInt(CATEGORY_COUNT)));
  return [...set];
}

/** A random [low, high) score range of RANGE_WIDTH. */
export function randomRange(): { low: number; high: number } {
  const low = randomInt(SCORE_SPAN - RANGE_WIDTH);
  return { low, high: low + RANGE_WIDTH };
}

/** A Pointer in wire (and stored) form. */
export function pointer(className: string, objectId: string): { __type: 'Pointer'; className: string; objectId: string } {
  return { __type: 'Pointer', className, objectId };
}

/** A new Bench object's fields, as sent to the API and as stored in `data`. */
export function benchObject(ownerIds: readonly string[], seq: number): Record<string, unknown> {
  return {
    score: randomInt(SCORE_SPAN),
    category: categoryName(randomInt(CATEGORY_COUNT)),
    n: 0,
    name: `object ${seq}`,
    owner: pointer(OWNER_CLASS, pick(ownerIds)),
  };
}

/** A BenchOwner object's fields. */
export function ownerObject(seq: number): Record<string, unknown> {
  return { name: `owner ${seq}`, level: seq % 10 };
}
