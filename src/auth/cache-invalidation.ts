/**
 * Keeps the per-process caches of an app (resolved sessions, class permissions, settings)
 * consistent across every Larder process on one database. A change is applied to this
 * process's caches at once, then announced with `pg_notify` on one channel; every process
 * LISTENs (a dedicated connection on PostgreSQL, PGlite's in-process notifications) and drops
 * the same entries. Callers invalidate AFTER their transaction commits, so no request can
 * re-cache the old state from the database in between.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import { loadSettings } from '../settings/app-settings.ts';
import { sql } from '../sql/fragment.ts';
import { principalCache } from './principal-cache.ts';

/** The notification channel every process listens on. */
export const INVALIDATION_CHANNEL = 'larder_invalidate';

/** What changed. `s` is the app's schema (several apps or test schemas share one database). */
type Change =
  | { readonly k: 'roles' }
  | { readonly k: 'sessions'; readonly u: string }
  | { readonly k: 'settings' }
  | { readonly k: 'classes'; readonly c?: string };

type Message = Change & { readonly s: string; readonly from: string };

/** What invalidation touches: an app's database, class catalogue and scope (settings, caches); tools pass these alone. */
export type AppState = Pick<AppContext, 'db' | 'classes' | 'scope'>;

/**
 * This app's side of the channel. Per app (not per process): two apps in one process must hear
 * each other's changes, so each has its own sender id.
 */
interface Channel {
  readonly sender: string;
  /** Other processes' changes applied (tests and diagnostics). */
  received: number;
}
const CHANNEL = appSlot<Channel>('invalidation.channel');

function channelOf(app: AppState): Channel {
  return app.scope.ensure(CHANNEL, () => ({ sender: randomBytes(8).toString('hex'), received: 0 }));
}

function senderId(app: AppState): string {
  return channelOf(app).sender;
}

/** Reads the stored settings and makes them the app's current snapshot. */
async function reloadSettings(app: AppState): Promise<void> {
  app.scope.replaceSettings(await loadSettings(app.db));
}

async function apply(app: AppState, change: Change): Promise<void> {
  switch (change.k) {
    case 'roles':
      principalCache(app).clear();
      return;
    case 'sessions':
      principalCache(app).dropUser(change.u);
      return;
    case 'settings':
      await reloadSettings(app);
      return;
    case 'classes':
      app.classes.forgetSecurity(change.c);
      return;
  }
}

/** Everything may have changed (a reconnect lost notifications): drop and reload it all. */
async function resetAll(app: AppState): Promise<void> {
  principalCache(app).clear();
  app.classes.forgetSecurity();
  await reloadSettings(app);
}

function parse(payload: string): Message | undefined {
  try {
    const m: unknown = JSON.parse(payload);
    if (typeof m !== 'object' || m === null) return undefined;
    const r = m as Record<string, unknown>;
    if (typeof r.s !== 'string' || typeof r.from !== 'string') return undefined;
    if (r.k === 'roles' || r.k === 'settings') return { k: r.k, s: r.s, from: r.from };
    if (r.k === 'sessions' && typeof r.u === 'string') return { k: 'sessions', u: r.u, s: r.s, from: r.from };
    if (r.k === 'classes') return { k: 'classes', c: typeof r.c === 'string' ? r.c : undefined, s: r.s, from: r.from };
  } catch {
    // Not ours: ignore.
  }
  return undefined;
}

async function announce(app: AppState, change: Change): Promise<void> {
  await apply(app, change);
  const message: Message = { ...change, s: app.db.schema, from: senderId(app) };
  try {
    await app.db.query(sql`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(message)})`);
  } catch {
    // The change itself is committed; other processes fall back on the cache lifetime
    // (PRINCIPAL_TTL_MS) or their next reconnect, which drops everything.
  }
}

/**
 * Starts listening for other processes' changes; openApp calls it once per app. Without a
 * listening engine (wrapped handles in tools) only this process's own changes are seen.
 */
export async function startInvalidationListener(app: AppState): Promise<void> {
  if (!app.db.listen) return;
  const channel = channelOf(app);
  const unlisten = await app.db.listen(
    INVALIDATION_CHANNEL,
    (payload) => {
      const m = parse(payload);
      // A closed app's caches are gone; what it hears now is for the apps still open.
      if (!m || m.s !== app.db.schema || m.from === channel.sender || app.scope.closed) return;
      const applied = () => void channel.received++;
      void apply(app, m).then(applied, () => {
        if (!app.scope.closed) principalCache(app).clear();
        applied();
      });
    },
    () => void (app.scope.closed ? undefined : resetAll(app).catch(() => {})),
  );
  // On PostgreSQL a connection of its own: released with the app, not only with the database.
  app.scope.onClose(unlisten);
}

/** Number of other processes' changes this app has applied (tests and diagnostics). */
export function invalidationsReceived(app: AppState): number {
  return app.scope.get(CHANNEL)?.received ?? 0;
}

/** A user's session token rotated or the user was deleted: its cached sessions go, everywhere. */
export async function invalidateSessions(app: AppState, userId: string): Promise<void> {
  await announce(app, { k: 'sessions', u: userId });
}

/** A role was created, deleted or its users/roles changed: every cached principal goes. */
export async function invalidateRoles(app: AppState): Promise<void> {
  await announce(app, { k: 'roles' });
}

/** App settings changed: every process reloads them. */
export async function invalidateSettings(app: AppState): Promise<void> {
  await announce(app, { k: 'settings' });
}

/** Class permissions or the default ACL of a class (or of all, without a name) changed. */
export async function invalidateClassSecurity(app: AppState, className?: string): Promise<void> {
  await announce(app, className === undefined ? { k: 'classes' } : { k: 'classes', c: className });
}

/**
 * Calls `onUser` whenever any process, this one included, invalidates the sessions of a user of
 * this app (token rotated, user deleted). For holders of long-lived connections (module
 * WebSockets) that must recheck a session; the message format stays private to this file.
 * Watches until the app closes.
 */
export async function watchSessionInvalidations(app: AppState, onUser: (userId: string) => void): Promise<void> {
  if (!app.db.listen) return;
  const unlisten = await app.db.listen(
    INVALIDATION_CHANNEL,
    (payload) => {
      const m = parse(payload);
      if (m?.k === 'sessions' && m.s === app.db.schema && !app.scope.closed) onUser(m.u);
    },
    () => {},
  );
  app.scope.onClose(unlisten);
}
