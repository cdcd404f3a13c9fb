/**
 * Pushes waiting for their client's acknowledgement. Every matched event is stored here before
 * it is sent, so a client that was away (a dropped connection, a crashed process) gets what it
 * missed when it logs in again within the reconnect window, on any process. An `ack` deletes.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';

/**
 * A FROM item that makes its statement's own transaction commit without waiting for the WAL
 * flush (`synchronous_commit = off` for that transaction only: set_config(..., true) lasts until
 * the commit, which reads it). Outbox rows and notifications are the service's own bookkeeping:
 * a database crash may lose the last few milliseconds of them (pushes already sent, or
 * acknowledgements to delete again), never a user's write; in exchange a round of pushes does
 * not wait for a disk flush before it is sent.
 */
export const ASYNC_COMMIT = sql`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/** One stored push. */
export interface OutboxEvent {
  readonly seq: string;
  readonly subscriptionId: string;
  readonly payload: string;
}

/** Stores pushes; returns them with their sequence numbers, in the order given. */
export async function storeEvents(app: AppContext, items: readonly { subscriptionId: string; payload: string }[]): Promise<OutboxEvent[]> {
  if (items.length === 0) return [];
  const rows = await app.db.query<{ seq: string | number; installation_id: string; o: string | number }>(sql`INSERT INTO _larder_lq_events (installation_id, payload)
    SELECT i, p FROM unnest(${items.map((x) => x.subscriptionId)}::text[], ${items.map((x) => x.payload)}::text[]) WITH ORDINALITY AS u(i, p, o), ${ASYNC_COMMIT} ORDER BY o
    RETURNING seq, installation_id`);
  // RETURNING gives the rows in insertion order; the subscription id is checked all the same.
  return rows.map((r, n) => {
    if (r.installation_id !== items[n].subscriptionId) throw new Error('livequery: outbox insert returned rows out of order');
    return { seq: String(r.seq), subscriptionId: r.installation_id, payload: items[n].payload };
  });
}

/** Pushes of one client still inside the window, oldest first (after a login). */
export async function pendingEvents(app: AppContext, subscriptionId: string, windowMs: number): Promise<OutboxEvent[]> {
  const rows = await app.db.query<{ seq: string | number; payload: string }>(sql`SELECT seq, payload FROM _larder_lq_events
    WHERE installation_id = ${subscriptionId} AND created_at >= now() - ${windowMs} * interval '1 millisecond' ORDER BY seq`);
  return rows.map((r) => ({ seq: String(r.seq), subscriptionId, payload: r.payload }));
}

/** Pushes by sequence number (too large to travel in a notification). */
export async function eventsBySeq(app: AppContext, seqs: readonly string[]): Promise<OutboxEvent[]> {
  if (seqs.length === 0) return [];
  const rows = await app.db.query<{ seq: string | number; installation_id: string; payload: string }>(sql`SELECT seq, installation_id, payload FROM _larder_lq_events
    WHERE seq = ANY(${[...seqs]}::bigint[]) ORDER BY seq`);
  return rows.map((r) => ({ seq: String(r.seq), subscriptionId: r.installation_id, payload: r.payload }));
}

/** Deletes acknowledged pushes (each with the client that acknowledged it). */
export async function deleteAcknowledged(app: AppContext, acks: readonly { subscriptionId: string; seq: string }[]): Promise<void> {
  if (acks.length === 0) return;
  await app.db.query(sql`DELETE FROM _larder_lq_events e USING unnest(${acks.map((a) => a.seq)}::bigint[], ${acks.map((a) => a.subscriptionId)}::text[]) AS a(seq, iid), ${ASYNC_COMMIT}
    WHERE e.seq = a.seq AND e.installation_id = a.iid`);
}
