/**
 * The per-app state of this process, owned in one place with one lifetime (docs/architecture.md,
 * "Per-app state"). `openApp` creates an app's scope and `closeApp` disposes it; everything this
 * process keeps for one app (session cache, the running LiveQuery service, the friends hub, the
 * export runner, authData verifiers...) lives in a slot of it, never in a module-level map keyed
 * by the app, so two apps in one process stay apart and closing an app releases its timers,
 * subscriptions and caches. The app's settings are one immutable snapshot here, replaced only by
 * `replaceSettings` (test/architecture/app-state.test.ts keeps both rules).
 */
import type { AppSettings } from './settings/app-settings.ts';

/**
 * A named, typed place in every app's scope for one kind of state. Declared once at module level
 * by its owner (`const HUB = appSlot<Hub>('friends.hub')`); the object itself is the key, the name
 * is for messages.
 */
export interface AppSlot<T> {
  readonly name: string;
  /** Never set: carries the slot's type. */
  readonly __type?: T;
}

/** Declares a slot. */
export function appSlot<T>(name: string): AppSlot<T> {
  return Object.freeze({ name });
}

/** Releases what a slot's value holds (stops timers, closes connections); may be async. */
export type Dispose = () => void | Promise<void>;

type SettingsWatcher = (next: AppSettings, previous: AppSettings) => void;

interface Held {
  readonly value: unknown;
  readonly dispose?: Dispose;
}

/** One app's state in this process. */
export class AppScope {
  #settings: AppSettings;
  readonly #watchers = new Set<SettingsWatcher>();
  readonly #slots = new Map<AppSlot<unknown>, Held>();
  readonly #onClose: Dispose[] = [];
  #closed = false;

  constructor(settings: AppSettings) {
    this.#settings = Object.freeze({ ...settings });
  }

  /** The current settings: an immutable snapshot (a change replaces it whole). */
  get settings(): AppSettings {
    return this.#settings;
  }

  /**
   * The one way an app's settings change (the settings use-case after storing a change, and the
   * invalidation listener after another process stored one). Watchers hear it synchronously.
   */
  replaceSettings(next: AppSettings): void {
    const previous = this.#settings;
    this.#settings = Object.freeze({ ...next });
    for (const w of this.#watchers) w(this.#settings, previous);
  }

  /** Calls `watcher` after every settings change until the returned function is called. */
  onSettingsChanged(watcher: SettingsWatcher): () => void {
    this.#watchers.add(watcher);
    return () => void this.#watchers.delete(watcher);
  }

  /** True once closeApp ran: listeners still attached must ignore what they hear. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The slot's value, if one is held. */
  get<T>(slot: AppSlot<T>): T | undefined {
    return this.#slots.get(slot)?.value as T | undefined;
  }

  /** The slot's value, made by `make` on first use; it lives until the app closes. */
  ensure<T>(slot: AppSlot<T>, make: () => T, dispose?: (value: T) => void | Promise<void>): T {
    const held = this.#slots.get(slot);
    if (held) return held.value as T;
    const value = make();
    this.put(slot, value, dispose ? () => dispose(value) : undefined);
    return value;
  }

  /**
   * Holds `value` in the slot (replacing any other, which is then no longer disposed by the
   * scope). `dispose` runs when the app closes unless the owner took the value back first with
   * `release` (a service the HTTP server stopped itself).
   */
  put<T>(slot: AppSlot<T>, value: T, dispose?: Dispose): void {
    if (this.#closed) throw new Error(`app closed: cannot hold ${slot.name}`);
    this.#slots.set(slot, { value, dispose });
  }

  /** Takes `value` out of the slot without disposing it (its owner stopped it); a no-op if another value is held. */
  release<T>(slot: AppSlot<T>, value: T): void {
    if (this.#slots.get(slot)?.value === value) this.#slots.delete(slot);
  }

  /** Runs `dispose` when the app closes (last registered, first run). */
  onClose(dispose: Dispose): void {
    if (this.#closed) throw new Error('app closed');
    this.#onClose.push(dispose);
  }

  /**
   * Disposes everything, last acquired first: slot values (newest first), then `onClose`
   * callbacks. Every disposer runs even if one fails; the first failure is thrown at the end.
   * Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const disposers = [...[...this.#slots.values()].flatMap((h) => (h.dispose ? [h.dispose] : [])).reverse(), ...[...this.#onClose].reverse()];
    this.#slots.clear();
    this.#onClose.length = 0;
    this.#watchers.clear();
    let failure: unknown;
    for (const d of disposers) {
      try {
        await d();
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
