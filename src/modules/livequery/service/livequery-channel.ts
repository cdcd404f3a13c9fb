/**
 * Messages between the Larder processes of one database on the `larder_livequery` channel
 * (pg_notify; in-process on PGlite). Each carries the app's schema and its sender, which
 * ignores its own messages (it acted already).
 *
 * - `subs`: these subscriptions changed (subscribe, unsubscribe, expiry): reload them.
 * - `push`: stored pushes with their text, for the processes holding their clients.
 * - `pull`: stored pushes too large for a notification: read them from the outbox.
 */

/** The notification channel. */
export const LIVEQUERY_CHANNEL = 'larder_livequery';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; stay under it with room to spare. */
export const MAX_NOTIFY_BYTES = 7000;

/**
 * The start of every message a sender writes: messages are built as `{...{s, from}, k, ...}`,
 * so their JSON text begins with these keys. A process skips its own messages by this prefix
 * without parsing them (one process alone receives every push it broadcast).
 */
export function senderPrefix(s: string, from: string): string {
  return `${JSON.stringify({ s, from }).slice(0, -1)},`;
}

/** One message. */
export type ChannelMessage =
  | { readonly s: string; readonly from: string; readonly k: 'subs'; readonly q: readonly string[] }
  | { readonly s: string; readonly from: string; readonly k: 'push'; readonly e: readonly { n: string; i: string; m: string }[] }
  | { readonly s: string; readonly from: string; readonly k: 'pull'; readonly n: readonly string[] };

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
}

/** Parses a payload; undefined for anything malformed. */
export function parseChannelMessage(payload: string): ChannelMessage | undefined {
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r.s !== 'string' || typeof r.from !== 'string') return undefined;
  if (r.k === 'subs') {
    const q = strings(r.q);
    return q ? { s: r.s, from: r.from, k: 'subs', q } : undefined;
  }
  if (r.k === 'pull') {
    const n = strings(r.n);
    return n ? { s: r.s, from: r.from, k: 'pull', n } : undefined;
  }
  if (r.k === 'push' && Array.isArray(r.e)) {
    const e = r.e.filter((x): x is { n: string; i: string; m: string } => typeof x === 'object' && x !== null && typeof x.n === 'string' && typeof x.i === 'string' && typeof x.m === 'string');
    return { s: r.s, from: r.from, k: 'push', e };
  }
  return undefined;
}

/**
 * Splits items into messages that each fit one notification; `fixed` is the size of the
 * message without items. An item too large for any message goes to `tooLarge`.
 */
export function packItems<T>(items: readonly T[], fixed: number, sizeOf: (item: T) => number): { packs: T[][]; tooLarge: T[] } {
  const packs: T[][] = [];
  const tooLarge: T[] = [];
  let current: T[] = [];
  let size = fixed;
  for (const item of items) {
    const cost = sizeOf(item) + 1;
    if (fixed + cost > MAX_NOTIFY_BYTES) {
      tooLarge.push(item);
      continue;
    }
    if (current.length > 0 && size + cost > MAX_NOTIFY_BYTES) {
      packs.push(current);
      current = [];
      size = fixed;
    }
    current.push(item);
    size += cost;
  }
  if (current.length > 0) packs.push(current);
  return { packs, tooLarge };
}
