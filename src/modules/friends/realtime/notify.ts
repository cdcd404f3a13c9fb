/**
 * Delivers friends notifications `{header:{path}, body}` (§7.5) to users' open WebSocket
 * connections on EVERY Larder process of the database. This process's connections get the
 * message at once; the others through `pg_notify` on one channel, which every process LISTENs
 * on (a dedicated connection on PostgreSQL, in-process on PGlite; realtime/mount.ts). A message
 * carries its sender's process id so the sender does not deliver it twice.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';
import { hubOf, type Hub } from './hub.ts';

/** The notification channel of friends messages. */
export const FRIENDS_CHANNEL = 'larder_friends';

/**
 * PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; stay well under it, leaving room for
 * the envelope, and split long recipient lists into several messages.
 */
const MAX_PAYLOAD_BYTES = 7000;

/** One cross-process message: schema, sender process, recipients, the text to send them. */
interface Envelope {
  readonly s: string;
  readonly from: string;
  readonly u: readonly string[];
  readonly m: string;
}

/** Splits recipients so that each envelope fits one NOTIFY payload. */
function chunks(userIds: readonly string[], fixedBytes: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let size = fixedBytes;
  for (const id of userIds) {
    const cost = Buffer.byteLength(JSON.stringify(id)) + 1;
    if (current.length > 0 && size + cost > MAX_PAYLOAD_BYTES) {
      out.push(current);
      current = [];
      size = fixedBytes;
    }
    current.push(id);
    size += cost;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * Sends `{header:{path}, body}` to every open connection of `userIds`, on every process. Who may
 * receive what (friends only, onlineMsgEnabled / richMsgEnabled) is the caller's decision.
 * Resolves once the message is delivered here and handed to PostgreSQL for the others.
 */
export async function notifyUsers(app: AppContext, userIds: readonly string[], path: string, body: Record<string, unknown>): Promise<void> {
  const recipients = [...new Set(userIds)];
  if (recipients.length === 0) return;
  const text = JSON.stringify({ header: { path }, body });
  const hub = hubOf(app);
  hub?.deliver(recipients, text);
  const from = hub?.processId ?? '';
  const fixed = Buffer.byteLength(JSON.stringify({ s: app.db.schema, from, u: [], m: text }));
  if (fixed >= MAX_PAYLOAD_BYTES) throw new Error(`friends notification ${path} is too large to cross processes (${fixed} bytes)`);
  for (const part of chunks(recipients, fixed)) {
    const envelope: Envelope = { s: app.db.schema, from, u: part, m: text };
    await app.db.query(sql`SELECT pg_notify(${FRIENDS_CHANNEL}, ${JSON.stringify(envelope)})`);
  }
}

function parseEnvelope(payload: string): Envelope | undefined {
  try {
    const v: unknown = JSON.parse(payload);
    if (typeof v !== 'object' || v === null) return undefined;
    const r = v as Record<string, unknown>;
    if (typeof r.s !== 'string' || typeof r.from !== 'string' || typeof r.m !== 'string' || !Array.isArray(r.u)) return undefined;
    const u = r.u.filter((x): x is string => typeof x === 'string');
    return { s: r.s, from: r.from, u, m: r.m };
  } catch {
    return undefined;
  }
}

/**
 * Called with every payload on FRIENDS_CHANNEL (mount.ts): delivers other processes' messages
 * for this app's schema to the connections this process holds.
 */
export function receiveEnvelope(app: AppContext, hub: Hub, payload: string): void {
  const e = parseEnvelope(payload);
  if (!e || e.s !== app.db.schema || e.from === hub.processId) return;
  hub.deliver(e.u, e.m);
}
