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

/**
 * Stores pushes numbered beforehand (store/sequence-reserve.ts). Returns true when another
 * LiveQuery process held a lease when the rows were written: only then do the pushes go out on
 * the channel (a process alone would only send them to itself). A process that registers later
 * waits for every store already under way before it accepts a client (`awaitStoresInFlight`),
 * so each push is either announced to it or found by its clients' replay after login.
 */
export async function storeEvents(app: AppContext, processId: string, events: readonly OutboxEvent[]): Promise<boolean> {
  if (events.length === 0) return false;
  // One statement, one snapshot: the lease check sees exactly the processes registered before
  // the rows were written (the insert's table lock is taken before that snapshot).
  const [row] = await app.db.query<{ others: boolean }>(sql`WITH ins AS (INSERT INTO _larder_lq_events (seq, installation_id, payload)
    SELECT s, i, p FROM unnest(${events.map((e) => e.seq)}::bigint[], ${events.map((e) => e.subscriptionId)}::text[], ${events.map((e) => e.payload)}::text[]) AS u(s, i, p), ${ASYNC_COMMIT}
    RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM _larder_lq_processes WHERE process_id <> ${processId}) AS others, (SELECT count(*) FROM ins) AS n`);
  return row?.others === true;
}

/**
 * Waits until every outbox write already under way has committed (a SHARE lock conflicts with
 * their inserts). A process calls it after registering its lease and before serving clients:
 * a store that did not see the lease was under way, so its rows are visible to the clients'
 * replay from then on.
 */
export async function awaitStoresInFlight(app: AppContext): Promise<void> {
  await app.db.transaction((tx) => tx.query(sql`LOCK TABLE _larder_lq_events IN SHARE MODE`));
}

/** Pushes of one client still inside the window, oldest first (after a login). */
export async function pendingEvents(app: AppContext, subscriptionId: string, windowMs: number): Promise<OutboxEvent[]> {
  const rows = await app.db.query<{ seq: string | number; payload: string }>(sql`SELECT seq, payload FROM _larder_lq_events
    WHERE installation_id = ${subscriptionId} AND created_at >= now() - ${windowMs} * interval '1 millisecond' ORDER BY created_at, seq`);
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
