/**
 * The names of the functions and hooks the engine defines, as its
 * `GET /1.1/functions/_ops/metadatas` lists them (`__before_save_for_Review`,
 * `__on_login__User`, ...). Read at start, on `larder engine refresh` or the admin endpoint,
 * and periodically; kept in `_larder_meta` so that every Larder process on the database shares
 * one list, and announced with pg_notify so that the others reload it at once.
 */
import { randomBytes } from 'node:crypto';
import { sql } from '../sql/fragment.ts';
import type { Database, Queryable } from '../storage/database.ts';

/** Notification channel of hook-list changes. */
export const HOOK_LIST_CHANNEL = 'larder_cloud';

/** The stored list and when it was read. */
export interface StoredHookList {
  readonly names: readonly string[];
  readonly refreshedAt: string;
}

/** Longest list and name accepted from an engine (a list is a few hundred names at most). */
const MAX_NAMES = 10_000;
const MAX_NAME_LENGTH = 256;

/** Reads the `{result: [names]}` answer of the metadatas endpoint; undefined when it is not one. */
export function parseMetadatas(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const result = (body as Record<string, unknown>).result;
  if (!Array.isArray(result) || result.length > MAX_NAMES) return undefined;
  if (!result.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_NAME_LENGTH)) return undefined;
  return [...new Set(result as string[])].sort();
}

/** The hook list of one app in this process. */
export class HookList {
  #names: ReadonlySet<string> = new Set();
  #refreshedAt: string | undefined;
  readonly #listeners: (() => void)[] = [];
  readonly #self = randomBytes(8).toString('hex');

  /** True when the engine defines this function or hook. */
  has(name: string): boolean {
    return this.#names.has(name);
  }

  /** The names, sorted, and when they were read (undefined: never). */
  snapshot(): StoredHookList & { refreshedAt: string | undefined } {
    return { names: [...this.#names].sort(), refreshedAt: this.#refreshedAt ?? '' };
  }

  /** Calls `f` whenever the list changes (the write pipeline forgets its cached interests). */
  onChange(f: () => void): void {
    this.#listeners.push(f);
  }

  #set(stored: StoredHookList | undefined): void {
    const next = new Set(stored?.names ?? []);
    const same = next.size === this.#names.size && [...next].every((n) => this.#names.has(n));
    this.#names = next;
    this.#refreshedAt = stored?.refreshedAt;
    if (!same) for (const f of this.#listeners) f();
  }

  /** Loads the list another process (or an earlier start) stored. */
  async load(db: Queryable): Promise<void> {
    this.#set(await readStored(db));
  }

  /** Stores a freshly read list, takes it, and tells the other processes. */
  async store(db: Database, names: readonly string[]): Promise<void> {
    const stored: StoredHookList = { names, refreshedAt: new Date().toISOString() };
    await db.query(sql`INSERT INTO _larder_meta (key, value) VALUES ('engine_hooks', ${JSON.stringify(stored)}::jsonb)
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`);
    this.#set(stored);
    const message = JSON.stringify({ s: db.schema, from: this.#self });
    await db.query(sql`SELECT pg_notify(${HOOK_LIST_CHANNEL}, ${message})`).catch(() => {});
  }

  /** Reloads the list whenever another process stored one; the result stops listening. */
  async listen(db: Database): Promise<() => Promise<void>> {
    if (!db.listen) return async () => {};
    const reload = () => void this.load(db).catch(() => {});
    return db.listen(
      HOOK_LIST_CHANNEL,
      (payload) => {
        try {
          const m = JSON.parse(payload) as { s?: unknown; from?: unknown };
          if (m.s === db.schema && m.from !== this.#self) reload();
        } catch {
          // Not ours.
        }
      },
      reload,
    );
  }
}

async function readStored(db: Queryable): Promise<StoredHookList | undefined> {
  const rows = await db.query<{ value: unknown }>(sql`SELECT value FROM _larder_meta WHERE key = 'engine_hooks'`);
  const v = rows[0]?.value;
  if (typeof v !== 'object' || v === null) return undefined;
  const names = parseMetadatas({ result: (v as Record<string, unknown>).names });
  const at = (v as Record<string, unknown>).refreshedAt;
  return names ? { names, refreshedAt: typeof at === 'string' ? at : '' } : undefined;
}
