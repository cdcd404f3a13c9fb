/**
 * Upload tokens this process issued lately (fileTokens) and that no PUT has used yet, so that a
 * PUT of such a token reaching this process needs no claim statement: the token's row is known,
 * and the one statement that commits the upload checks that the row is still pending (or
 * claimed by a PUT that lost the race for the blob's path) and that the token was valid when the
 * PUT began (receive-upload.ts). One database round trip less per upload (docs/benchmarks.md,
 * Files). A token not here (issued by another process, forgotten, or in use by a PUT of this
 * process right now: that one gets the claim's 403 at once) takes the claim as before.
 * Bounded: the oldest go first; files deleted through this process are forgotten.
 */
import type { FileRecord } from './file-records.ts';

interface Issued {
  row: FileRecord;
  /** Until when the token is valid, by this process's clock (ms); taken before its row was written. */
  validUntil: number;
  /** A PUT of this process is using it now. */
  busy: boolean;
}

/** What `take` found. */
export type Taken = { row: FileRecord } | 'busy' | undefined;

export class IssuedTokens {
  /** Token hash -> what was issued, oldest first. */
  private readonly byToken = new Map<string, Issued>();

  constructor(private readonly max = 4096, private readonly now: () => number = Date.now) {}

  /** A token was issued for `row` (pending), valid until `validUntil`. */
  add(tokenHash: string, row: FileRecord, validUntil: number): void {
    this.byToken.set(tokenHash, { row, validUntil, busy: false });
    if (this.byToken.size > this.max) this.byToken.delete(this.byToken.keys().next().value as string);
  }

  /**
   * One PUT takes the token: its row when the token was issued here and stays valid for at least
   * `marginMs` more; 'busy' while another PUT of this process has it; else undefined.
   */
  take(tokenHash: string, marginMs: number): Taken {
    const entry = this.byToken.get(tokenHash);
    if (!entry) return undefined;
    if (entry.busy) return 'busy';
    if (this.now() + marginMs >= entry.validUntil) {
      this.byToken.delete(tokenHash);
      return undefined;
    }
    entry.busy = true;
    return { row: entry.row };
  }

  /** The PUT failed and the token may be tried again (it is still pending). */
  giveBack(tokenHash: string): void {
    const entry = this.byToken.get(tokenHash);
    if (entry) entry.busy = false;
  }

  /** The token is used (or no longer usable): later PUTs take the claim, which refuses them. */
  drop(tokenHash: string): void {
    this.byToken.delete(tokenHash);
  }

  /** Files being deleted: their tokens are no longer known here. */
  forgetObjects(objectIds: readonly string[]): void {
    if (!this.byToken.size || !objectIds.length) return;
    const gone = new Set(objectIds);
    for (const [token, entry] of this.byToken) if (gone.has(entry.row.object_id)) this.byToken.delete(token);
  }
}
