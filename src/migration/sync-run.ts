/**
 * The loop of `larder sync`: check the source, copy every class fully (resuming saved
 * progress), then run incremental rounds every `interval` until stopped, with a deletion
 * reconciliation every `reconcile` seconds. Progress and lag go to `log` as one line per page
 * or class and round. Stopping (`stop()`, wired to SIGINT/SIGTERM by the command) lets the
 * current page finish and its state be saved; the loop then returns.
 */
import { announceImported, type ImportTarget } from './write-objects.ts';
import { fullCopy, incrementalRound, type CopyResult } from './sync-class.ts';
import { readSchemas, sourceDate, type SourceSchemas } from './sync-reader.ts';
import { reconcileDeletions } from './sync-reconcile.ts';
import { registerRelationColumns, relationColumns } from './sync-relations.ts';
import { SourceError, type SourceClient } from './sync-source.ts';
import { isApiError } from '../errors/api-error.ts';
import { checkClassName } from '../model/names.ts';
import { ensureStateTable, freshState, loadStates, saveState, type ClassState, type SyncKey } from './sync-state.ts';

/** Settings of one sync run. */
export interface SyncRunOptions {
  client: SourceClient;
  target: ImportTarget;
  key: SyncKey;
  classes?: readonly string[];
  once: boolean;
  intervalMs: number;
  overlapMs: number;
  /** 0 = never reconcile deletions. */
  reconcileMs: number;
  log: (line: string) => void;
  /** Objects per scan page (default 1000). */
  pageSize?: number;
}

/** Totals of a run, for the last line. */
export interface SyncTotals {
  rounds: number;
  received: number;
  written: number;
  skipped: number;
  deleted: number;
  requests: number;
}

/** Classes the API lists that hold no copyable objects of their own. */
const NOT_COPIED = new Set(['_Session']);

function classesToCopy(schemas: SourceSchemas, only: readonly string[] | undefined): string[] {
  if (only) {
    const missing = only.filter((c) => !schemas.has(c));
    if (missing.length) throw new SourceError(`The source has no class ${missing.join(', ')} (GET /1.1/schemas lists ${[...schemas.keys()].join(', ') || 'no class'}).`);
    return [...only];
  }
  // Users first, then roles, then the rest: nothing requires it, but a partial copy then holds
  // whole ACL principals before the objects that name them.
  const rank = (c: string) => (c === '_User' ? 0 : c === '_Role' ? 1 : 2);
  return [...schemas.keys()].filter((c) => !NOT_COPIED.has(c)).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
}

/** Why Larder cannot hold a class of the source (e.g. LeanCloud's internal `_` classes), or undefined. */
function cannotStore(className: string): string | undefined {
  try {
    checkClassName(className);
    return undefined;
  } catch (err) {
    if (isApiError(err)) return err.message;
    throw err;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A stoppable sync: `run()` resolves when done (--once) or after `stop()`. */
export class SyncRun {
  private stopRequested = false;
  private wake: (() => void) | undefined;
  /** Per class: owners whose relations were copied, by updatedAt (see ClassSyncDeps). */
  private readonly relationsCopied = new Map<string, Map<string, string>>();
  private readonly refusedLogged = new Set<string>();
  readonly totals: SyncTotals = { rounds: 0, received: 0, written: 0, skipped: 0, deleted: 0, requests: 0 };

  constructor(private readonly o: SyncRunOptions) {}

  /** Asks the run to stop after the current page. */
  stop(): void {
    this.stopRequested = true;
    this.wake?.();
  }

  get stopping(): boolean {
    return this.stopRequested;
  }

  private add(r: CopyResult): void {
    this.totals.received += r.received;
    this.totals.written += r.written;
    this.totals.skipped += r.skipped;
  }

  /** Runs until done or stopped. */
  async run(): Promise<SyncTotals> {
    const { client, target, key, log } = this.o;
    // The app key is checked on its own first, so a bad app key and a bad master key give different messages.
    await sourceDate(client, false);
    await ensureStateTable(target.db);
    log(`sync from ${key.source} (app ${key.appId}) into the configured database`);
    for (let round = 1; !this.stopRequested; round++) {
      const roundStart = Date.now();
      const sourceNow = await sourceDate(client);
      const schemas = await readSchemas(client);
      const states = await loadStates(target.db, key);
      let roundWritten = 0;
      let changedAuth = false;
      let didFull = false;
      for (const className of classesToCopy(schemas, this.o.classes)) {
        if (this.stopRequested) break;
        const refused = cannotStore(className);
        if (refused) {
          if (!this.refusedLogged.has(className)) log(`${className}: not copied: ${refused}`);
          this.refusedLogged.add(className);
          continue;
        }
        const s = states.get(className) ?? freshState(className);
        const { columns, unnamed } = relationColumns(schemas.get(className) ?? {});
        if (unnamed.length) log(`${className}: relation columns ${unnamed.join(', ')} do not name their target class in /1.1/schemas; their members are not copied`);
        await registerRelationColumns(target, className, columns);
        const deps = { client, target, key, relations: columns, overlapMs: this.o.overlapMs, stopping: () => this.stopRequested, log, pageSize: this.o.pageSize, relationsCopied: this.copiedOf(className) };
        const wasFull = s.phase === 'full';
        didFull ||= wasFull;
        const res = wasFull ? await fullCopy(deps, s, sourceNow) : await incrementalRound(deps, s);
        this.add(res);
        roundWritten += res.written + res.relationRows;
        if ((res.written || res.relationRows) && (className === '_User' || className === '_Role')) changedAuth = true;
        if (res.stopped) break;
        const lag = res.newest ? ` newest updatedAt ${res.newest} (lag ${seconds(Date.now() - Date.parse(res.newest))})` : '';
        if (wasFull) log(`${className}: full copy done, ${s.copied} objects (${res.skipped} skipped, ${res.relationRows} relation rows)`);
        else if (res.received) log(`${className}: round ${round}, ${res.received} read (changed since the high-water mark minus the overlap), ${res.written} written,${lag}`);
        const deleted = await this.maybeReconcile(s, wasFull);
        if (deleted && (className === '_User' || className === '_Role')) changedAuth = true;
      }
      this.totals.rounds = round;
      this.totals.requests = client.requests;
      if (changedAuth) await announceImported(target);
      // Every change committed on the source before the round started is now here: that bounds the lag.
      const behind = this.stopRequested ? '' : `, the target lags the source by at most ${seconds(Date.now() - roundStart)}`;
      log(`round ${round} done in ${seconds(Date.now() - roundStart)}: ${roundWritten} objects and relation rows written${behind}, ${client.requests} GET requests so far`);
      if (this.o.once) {
        // A full copy is complete only once an incremental round has caught the changes made
        // while it ran (to objects it had already passed): --once then runs one more round.
        if (!didFull || round >= 2) break;
        continue;
      }
      await this.sleep(this.o.intervalMs);
    }
    this.totals.requests = client.requests;
    return this.totals;
  }

  private copiedOf(className: string): Map<string, string> {
    let m = this.relationsCopied.get(className);
    if (!m) this.relationsCopied.set(className, (m = new Map()));
    return m;
  }

  /** Deletes what the source no longer has, when due (always once after a full copy). */
  private async maybeReconcile(s: ClassState, justCopied: boolean): Promise<number> {
    const { reconcileMs, log } = this.o;
    if (reconcileMs <= 0 || this.stopRequested) return 0;
    // Right after a fresh full copy nothing can be missing; a resumed one may still hold objects
    // deleted on the source while it was stopped: the first check, one interval later, finds them.
    if (justCopied) {
      if (s.reconciledAt === null) {
        s.reconciledAt = Date.now();
        await saveState(this.o.target.db, this.o.key, s);
      }
      return 0;
    }
    if (Date.now() - (s.reconciledAt ?? 0) < reconcileMs && !this.o.once) return 0;
    const r = await reconcileDeletions({ client: this.o.client, target: this.o.target, overlapMs: this.o.overlapMs, stopping: () => this.stopRequested }, s.className);
    if (!r) return 0;
    s.reconciledAt = Date.now();
    await saveState(this.o.target.db, this.o.key, s);
    this.totals.deleted += r.deleted;
    if (r.deleted) log(`${s.className}: ${r.deleted} objects deleted on the source were deleted here (${r.sourceCount} remain on the source)`);
    return r.deleted;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }
}
