/**
 * Process leases and expiry. Each process renews its lease every few seconds; any process
 * sweeps the leases that ran out (a crashed or frozen process): their clients count as gone
 * from that moment. Clients gone longer than the reconnect window lose their subscriptions and
 * their undelivered events, and events older than the window are dropped.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';

/** Registers (or renews) this process's lease. False when its row had gone (swept as dead). */
export async function renewLease(app: AppContext, processId: string, leaseMs: number): Promise<boolean> {
  const kept = await app.db.query(sql`UPDATE _larder_lq_processes SET lease_until = now() + ${leaseMs} * interval '1 millisecond' WHERE process_id = ${processId} RETURNING 1`);
  if (kept.length > 0) return true;
  await app.db.query(sql`INSERT INTO _larder_lq_processes (process_id, lease_until) VALUES (${processId}, now() + ${leaseMs} * interval '1 millisecond')
    ON CONFLICT (process_id) DO UPDATE SET lease_until = EXCLUDED.lease_until`);
  return false;
}

/** Marks clients as held by this process again (after its lease had been swept during a pause). */
export async function reclaimClients(app: AppContext, processId: string, subscriptionIds: readonly string[]): Promise<void> {
  if (subscriptionIds.length === 0) return;
  await app.db.query(sql`UPDATE _larder_lq_clients SET process_id = ${processId}, seen_at = now() WHERE installation_id = ANY(${[...subscriptionIds]}::text[])`);
}

/** What one sweep removed: the query ids of expired subscriptions (other processes drop them too). */
export interface SweepResult {
  readonly expiredQueryIds: string[];
}

/** Sweeps dead processes, expired clients with their subscriptions, and old events. */
export async function sweepExpired(app: AppContext, windowMs: number): Promise<SweepResult> {
  const dead = await app.db.query<{ process_id: string }>(sql`DELETE FROM _larder_lq_processes WHERE lease_until <= now() RETURNING process_id`);
  if (dead.length > 0) {
    await app.db.query(sql`UPDATE _larder_lq_clients SET process_id = NULL, seen_at = now() WHERE process_id = ANY(${dead.map((d) => d.process_id)}::text[])`);
  }
  const gone = await app.db.query<{ installation_id: string }>(sql`DELETE FROM _larder_lq_clients
    WHERE process_id IS NULL AND seen_at < now() - ${windowMs} * interval '1 millisecond' RETURNING installation_id`);
  let expiredQueryIds: string[] = [];
  if (gone.length > 0) {
    const ids = gone.map((g) => g.installation_id);
    const subs = await app.db.query<{ query_id: string }>(sql`DELETE FROM _larder_lq_subscriptions WHERE installation_id = ANY(${ids}::text[]) RETURNING query_id`);
    await app.db.query(sql`DELETE FROM _larder_lq_events WHERE installation_id = ANY(${ids}::text[])`);
    expiredQueryIds = subs.map((s) => s.query_id);
  }
  await app.db.query(sql`DELETE FROM _larder_lq_events WHERE created_at < now() - ${windowMs} * interval '1 millisecond'`);
  return { expiredQueryIds };
}

/** Removes this process at shutdown: its clients' windows start now. */
export async function dropProcess(app: AppContext, processId: string): Promise<void> {
  await app.db.query(sql`DELETE FROM _larder_lq_processes WHERE process_id = ${processId}`);
  await app.db.query(sql`UPDATE _larder_lq_clients SET process_id = NULL, seen_at = now() WHERE process_id = ${processId}`);
}
