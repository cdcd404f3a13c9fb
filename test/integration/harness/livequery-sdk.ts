/**
 * The official JS SDK's LiveQuery bundle (`leancloud-storage/live-query`, which brings
 * `leancloud-realtime` and `leancloud-realtime-plugin-live-query`) pointed at a test server.
 * The SDK is one global object: each suite initialises it for its own server and closes its
 * realtime connection afterwards.
 */
import { createRequire } from 'node:module';
import { TEST_KEYS } from './engines.ts';

const require = createRequire(import.meta.url);

/** The SDK's AV namespace (untyped here: the SDK ships its own loose typings). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AVNamespace = any;

// leancloud-realtime allows one Realtime per appId per process: suites after the first re-point it.
let shared: AVNamespace | undefined;

/** Loads the LiveQuery bundle and points it at `serverURL` (a fresh realtime connection). */
export function liveQuerySdk(serverURL: string): AVNamespace {
  const AV = require('leancloud-storage/live-query');
  // Re-initialising for another server is what each suite does; the SDK warns about it.
  const warn = console.warn;
  console.warn = () => {};
  try {
    if (!shared) {
      AV.init({ appId: TEST_KEYS.appId, appKey: TEST_KEYS.appKey, serverURL });
      shared = AV._config.realtime;
    } else {
      shared._close();
      shared._liveQueryClients = {};
      shared._cache.set('endpoints', null, 0);
      shared._options.server = { api: serverURL, RTMRouter: serverURL };
      AV.init({ appId: TEST_KEYS.appId, appKey: TEST_KEYS.appKey, serverURL, realtime: shared });
    }
  } finally {
    console.warn = warn;
  }
  return AV;
}

/**
 * Closes the SDK's realtime connection (end of a suite, while the server still runs). First a
 * short pause: the LiveQuery plugin logs a client out a tick after its last query is
 * unsubscribed, without the caller awaiting it, and that logout's answer should arrive before
 * the connection closes (else the SDK waits 20 s for it and warns).
 */
export async function closeLiveQuerySdk(AV: AVNamespace): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
  AV._config.realtime?._close?.();
}

/** One received event: its name, the object's JSON and the updated keys (when given). */
export interface LiveEvent {
  op: string;
  object: Record<string, unknown>;
  updatedKeys?: string[];
}

/** Records the six events of a LiveQuery object. */
export function recordEvents(live: { on(ev: string, fn: (...a: any[]) => void): void }): { events: LiveEvent[]; next(match: (e: LiveEvent) => boolean, timeoutMs?: number): Promise<LiveEvent> } {
  const events: LiveEvent[] = [];
  const waiters = new Set<() => void>();
  for (const op of ['create', 'update', 'enter', 'leave', 'delete', 'login']) {
    live.on(op, (obj: { toJSON(): Record<string, unknown> }, updatedKeys?: string[]) => {
      events.push(updatedKeys ? { op, object: obj.toJSON(), updatedKeys } : { op, object: obj.toJSON() });
      for (const w of [...waiters]) w();
    });
  }
  return {
    events,
    next(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const i = events.findIndex(match);
          if (i < 0) return false;
          const [hit] = events.splice(i, 1);
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching LiveQuery event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
  };
}
