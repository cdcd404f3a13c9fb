/**
 * The included objects' documents as text, kept per process by row version (issue 16): the peer
 * bench's `include=owner` names ~19 of 100 users per page, and producing, sending and reading
 * their text on every request cost PostgreSQL and the server about a tenth of the request
 * (docs/benchmarks.md, "Include's objects by a join"). Once every object a head's statement
 * returned was known at the version it returned, the next statement for that head reads only each
 * object's id and version; the documents come from here (page-includes.ts).
 *
 * What is kept is only an object's document as text, without the fields the reader's kind never
 * sees (`strip`, part of the key): whether the reader may read the object is decided by the
 * statement on every request, under the reader's ACL, as before. A row's version is
 * `xmin:ctid`: every UPDATE writes a new tuple, whose xmin is its transaction and whose ctid is its
 * place; two updates of a row in one transaction leave tuples with one xmin at different places,
 * and a place is reused only after the tuple there is dead to every transaction (so by a later
 * transaction, with another xmin). A version seen again therefore has the same document.
 */
import type { AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import type { Database } from '../storage/database.ts';
import type { TextRow } from './raw-json.ts';

/** An included object's document as text, with its row version. */
export interface VersionedRow extends TextRow {
  readonly version: string;
  /**
   * Its wire text as include places it (splice-includes.ts), set on first use; null when the
   * document may hold a File (the parsing path then answers).
   */
  wire?: string | null;
}

/** Most objects kept per app; the oldest kept go first. */
export const MAX_CACHED_OBJECTS = 20_000;
/** Most characters of documents kept per app (their wire text, made once spliced, is about as much again). */
export const MAX_CACHED_CHARS = 4 * 1024 * 1024;
/** A larger document is never kept (it would push out hundreds of others). */
export const MAX_CACHED_DOCUMENT = 64 * 1024;

/** Most statements in a row that must find their objects all kept before a head reads versions only. */
export const MAX_TEXT_STREAK = 64;
/** Statements reading versions only without a miss after which `needed` is halved. */
export const HITS_TO_RELAX = 256;

interface HeadState {
  /** Statements in a row that read documents and found all of them kept already. */
  streak: number;
  /** How long that streak must be before the head reads versions only. */
  needed: number;
  /** Statements in a row that read versions only and missed none. */
  hits: number;
}

export class IncludedCache {
  /** By head key, then objectId (two levels: a lookup hashes the short id, not head and id joined). */
  private readonly heads = new Map<string, Map<string, VersionedRow>>();
  /** Every kept object in the order it was kept, for dropping the oldest. */
  private readonly order = new Map<VersionedRow, Map<string, VersionedRow>>();
  private chars = 0;
  /** By head key: when its statements read versions only (see read()). */
  private readonly state = new Map<string, HeadState>();

  /** Whether the head's next statement may read versions only. */
  isWarm(head: string): boolean {
    const st = this.state.get(head);
    return st !== undefined && st.streak >= st.needed;
  }

  /**
   * Records how a head's statement went: whether it read versions only (`versions`) and found
   * every object it returned kept here (`allKept`; with versions only, no second statement).
   * A head reads versions only after `needed` statements in a row found all their objects kept;
   * each miss while reading versions (a second statement) doubles `needed`, up to
   * MAX_TEXT_STREAK, so a head whose objects change often reads their documents at once and
   * seldom pays a second statement; a long run of hits halves it again.
   */
  read(head: string, versions: boolean, allKept: boolean): void {
    let st = this.state.get(head);
    if (!st) {
      if (this.state.size >= 1_000) this.state.clear();
      this.state.set(head, (st = { streak: 0, needed: 1, hits: 0 }));
    }
    if (!versions) {
      st.streak = allKept ? st.streak + 1 : 0;
    } else if (allKept) {
      if (++st.hits >= HITS_TO_RELAX && st.needed > 1) {
        st.needed /= 2;
        st.hits = 0;
      }
    } else {
      st.needed = Math.min(st.needed * 2, MAX_TEXT_STREAK);
      st.streak = 0;
      st.hits = 0;
    }
  }

  /** The object at this version, when kept. */
  get(head: string, objectId: string, version: string): VersionedRow | undefined {
    const r = this.heads.get(head)?.get(objectId);
    return r !== undefined && r.version === version ? r : undefined;
  }

  /** Keeps an object at its version (replacing any other version of it), within the bounds. */
  put(head: string, row: VersionedRow): void {
    let objects = this.heads.get(head);
    if (!objects) this.heads.set(head, (objects = new Map()));
    const old = objects.get(row.objectId);
    if (old !== undefined) this.drop(old, objects);
    if (row.data_text.length > MAX_CACHED_DOCUMENT) return;
    objects.set(row.objectId, row);
    this.order.set(row, objects);
    this.chars += row.data_text.length;
    while (this.order.size > MAX_CACHED_OBJECTS || this.chars > MAX_CACHED_CHARS) {
      const [oldest, of] = this.order.entries().next().value as [VersionedRow, Map<string, VersionedRow>];
      this.drop(oldest, of);
    }
  }

  private drop(row: VersionedRow, objects: Map<string, VersionedRow>): void {
    objects.delete(row.objectId);
    this.order.delete(row);
    this.chars -= row.data_text.length;
  }

  /** How many objects are kept (tests). */
  get size(): number {
    return this.order.size;
  }
}

/** The app's cache in this process (per app: its scope owns it, docs/architecture.md "Per-app state"). */
const CACHE = appSlot<IncludedCache>('objects.includedCache');

/** The app's cache of included objects, made on first use. */
export function includedCache(app: Pick<AppContext, 'scope'>): IncludedCache {
  return app.scope.ensure(CACHE, () => new IncludedCache());
}

/** The key of an include head's objects: the schema, the class and the fields left out of them. */
export function headKey(db: Database, className: string, strip: readonly string[]): string {
  return `${db.schema}\u0000${className}\u0000${strip.join('\u0000')}`;
}
