/**
 * Sending on the `larder_livequery` channel (livequery-channel.ts describes the messages): one
 * notification per message, committed without waiting for the WAL flush like the outbox.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';
import { ASYNC_COMMIT, type OutboxEvent } from '../store/event-outbox.ts';
import { LIVEQUERY_CHANNEL, packItems, type ChannelMessage } from './livequery-channel.ts';

/** Sends one message to every process listening on the database. */
export async function notifyChannel(app: AppContext, message: ChannelMessage): Promise<void> {
  await app.db.query(sql`SELECT pg_notify(${LIVEQUERY_CHANNEL}, ${JSON.stringify(message)}) FROM ${ASYNC_COMMIT}`);
}

/**
 * Hands stored pushes to the other processes: their text in `push` messages, or, for a push
 * too large for a notification, its sequence number in a `pull` message.
 */
export async function announcePushes(app: AppContext, from: string, events: readonly OutboxEvent[]): Promise<void> {
  const base = { s: app.db.schema, from };
  const fixed = Buffer.byteLength(JSON.stringify({ ...base, k: 'push', e: [] }));
  const items = events.map((e) => ({ n: e.seq, i: e.subscriptionId, m: e.payload }));
  const { packs, tooLarge } = packItems(items, fixed, (x) => Buffer.byteLength(JSON.stringify(x)));
  for (const e of packs) await notifyChannel(app, { ...base, k: 'push', e });
  if (tooLarge.length > 0) {
    const pullFixed = Buffer.byteLength(JSON.stringify({ ...base, k: 'pull', n: [] }));
    for (const n of packItems(tooLarge.map((x) => x.n), pullFixed, (x) => x.length + 2).packs) await notifyChannel(app, { ...base, k: 'pull', n });
  }
}
