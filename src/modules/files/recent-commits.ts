/**
 * Upload tokens this process committed lately, so that the fileCallback the SDKs send right
 * after their PUT (`{token, result}`, answered `{}` for a committed file whatever `result` is)
 * needs no statement: one database round trip less per upload (docs/benchmarks.md, Files).
 * Only what this process committed is here; a callback reaching another process, or one for a
 * token not here, reads the row as before. A file deleted through this process is forgotten
 * as its delete starts (through the file routes) or once it committed (other routes, the
 * cleanup job). Bounded: the oldest go first, and an entry is used only while its
 * token would still be valid (`ttlMs`).
 */
export class RecentCommits {
  /** Token hash -> [objectId, when committed (ms)], oldest first. */
  private readonly byToken = new Map<string, [string, number]>();

  constructor(private readonly ttlMs: number, private readonly max = 4096, private readonly now: () => number = Date.now) {}

  /** A token's upload was committed. */
  add(tokenHash: string, objectId: string): void {
    this.byToken.delete(tokenHash);
    this.byToken.set(tokenHash, [objectId, this.now()]);
    if (this.byToken.size > this.max) this.byToken.delete(this.byToken.keys().next().value as string);
  }

  /** True when this process committed the token's upload within `ttlMs`. */
  has(tokenHash: string): boolean {
    const entry = this.byToken.get(tokenHash);
    if (!entry) return false;
    if (this.now() - entry[1] < this.ttlMs) return true;
    this.byToken.delete(tokenHash);
    return false;
  }

  /** Files being deleted: their tokens no longer answer from here. */
  forgetObjects(objectIds: readonly string[]): void {
    if (!this.byToken.size || !objectIds.length) return;
    const gone = new Set(objectIds);
    for (const [token, [objectId]] of this.byToken) if (gone.has(objectId)) this.byToken.delete(token);
  }
}
