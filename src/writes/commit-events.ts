import type { RequestContext } from '../app-context.ts';
import { afterStage } from './run-write.ts';
import type { RestObject, WriteEvent, WriteKind, WriteSource } from './write-extension-api.ts';
import type { WriteNeeds } from './write-extensions.ts';

/** What a writer reports about one committed row write (the rest is filled in). */
export interface RowWriteReport {
  readonly className: string;
  readonly op: Exclude<WriteKind, 'login'>;
  readonly objectId: string;
  readonly object?: RestObject;
  readonly previous?: RestObject;
  readonly updatedKeys?: readonly string[];
}

/**
 * The after stage for writers that change several rows in one transaction of their own (module
 * rows such as friendships): they ask `needs` before each row write (so nothing extra is read
 * when no extension listens), `record` what they wrote, and `dispatch` once the transaction has
 * committed. A rolled-back transaction simply never dispatches.
 */
export class CommitEvents {
  readonly #ctx: RequestContext;
  readonly #source: WriteSource;
  #events: WriteEvent[] = [];

  constructor(ctx: RequestContext, source: WriteSource = 'module') {
    this.#ctx = ctx;
    this.#source = source;
  }

  /** What the extensions want from this kind of row write. */
  needs(className: string, op: Exclude<WriteKind, 'login'>): WriteNeeds {
    return this.#ctx.app.writes.needs(className, op, this.#source);
  }

  /** Remembers one row write for the after stage (only call when `needs(...).after`). */
  record(report: RowWriteReport): void {
    this.#events.push({ ...report, ctx: this.#ctx, source: this.#source, flags: {} });
  }

  /** Hands the recorded writes to the after extensions; call after the commit. */
  dispatch(): void {
    const events = this.#events;
    this.#events = [];
    afterStage(this.#ctx, events);
  }
}
