import type { BeforeWriteOf, RestObject, WriteEventOf, WriteExtensionOf, WriteInterest, WriteKind, WriteSource } from './extension-types.ts';

/** The merged interest of every registered extension in one kind of write. */
export interface WriteNeeds {
  readonly before: boolean;
  readonly after: boolean;
  readonly previous: boolean;
}

/** The answer for writes nobody registered for: shared, so the hot path allocates nothing. */
export const NO_NEEDS: WriteNeeds = Object.freeze({ before: false, after: false, previous: false });

/** Where failures of `after` calls go (the server's logger; stderr until one is given). */
export type ExtensionErrorSink = (err: unknown, extension: string, event: { readonly op: WriteKind; readonly className: string; readonly objectId: string }) => void;

const defaultSink: ExtensionErrorSink = (err, extension, event) => {
  // Only names and ids: an object's fields may hold secrets.
  process.emitWarning(`write extension ${extension} failed after ${event.op} ${event.className}/${event.objectId}: ${err instanceof Error ? err.message : String(err)}`);
};

/**
 * The write extensions of ONE app (`app.writes`). Answers what a write must do for them
 * (`needs`, cached per class, op and source), runs their `before` calls in registration order
 * and hands committed writes to their `after` calls. With nothing registered every call is a
 * constant-time no-op. `C` is the request context the extensions receive (RequestContext).
 */
export class WriteExtensions<C> {
  #list: WriteExtensionOf<C>[] = [];
  #needs = new Map<string, WriteNeeds>();
  #sink: ExtensionErrorSink = defaultSink;

  /** Adds an extension; returns a function that removes it again. */
  register(ext: WriteExtensionOf<C>): () => void {
    this.#list = [...this.#list, ext];
    this.changed();
    return () => {
      this.#list = this.#list.filter((e) => e !== ext);
      this.changed();
    };
  }

  /** Forgets cached interests: call when what an extension wants changed (e.g. new hook list). */
  changed(): void {
    this.#needs.clear();
  }

  /** Sends failures of `after` calls to the server's logger. */
  reportTo(sink: ExtensionErrorSink): void {
    this.#sink = sink;
  }

  /** What a write of this kind must do for the registered extensions. */
  needs(className: string, op: WriteKind, source: WriteSource = 'api'): WriteNeeds {
    if (this.#list.length === 0) return NO_NEEDS;
    const key = `${op}\u0000${source}\u0000${className}`;
    let n = this.#needs.get(key);
    if (!n) {
      let before = false;
      let after = false;
      let previous = false;
      for (const ext of this.#list) {
        const i: WriteInterest | undefined = ext.interest(className, op, source);
        if (!i) continue;
        before ||= i.before === true && ext.before !== undefined && source !== 'module' && source !== 'internal';
        after ||= i.after === true && ext.after !== undefined;
        previous ||= i.previous === true;
      }
      n = before || after ? Object.freeze({ before, after, previous }) : NO_NEEDS;
      this.#needs.set(key, n);
    }
    return n;
  }

  /**
   * Runs the `before` calls of the extensions interested in this write, in registration order;
   * each sees the object the previous one returned. Returns the replacement object when one
   * replaced it, else undefined. An extension's error propagates (the write is refused).
   */
  async before(write: BeforeWriteOf<C>): Promise<RestObject | undefined> {
    let current = write;
    let replaced: RestObject | undefined;
    for (const ext of this.#list) {
      if (!ext.before || !ext.interest(write.className, write.op, write.source)?.before) continue;
      const res = await ext.before(current);
      if (res && 'replace' in res && res.replace) {
        replaced = res.replace;
        current = { ...current, object: res.replace };
      }
    }
    return replaced;
  }

  /** Hands committed writes to the interested `after` calls; never throws, never waits. */
  after(events: readonly WriteEventOf<C>[]): void {
    for (const event of events) {
      for (const ext of this.#list) {
        if (!ext.after || !ext.interest(event.className, event.op, event.source)?.after) continue;
        try {
          const p = ext.after(event);
          if (p && typeof p.then === 'function') p.then(undefined, (err: unknown) => this.#sink(err, ext.name, event));
        } catch (err) {
          this.#sink(err, ext.name, event);
        }
      }
    }
  }
}
