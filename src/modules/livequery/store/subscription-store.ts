/**
 * Subscriptions and clients in the database: the one place every process reads them from, so
 * that a subscribe served by one process reaches the process holding the client's WebSocket,
 * and a client that reconnects to another process keeps its subscriptions.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { sql, type Queryable } from '../../../module-api/data.ts';
import type { SubscriptionQuery } from './subscription-query.ts';

/** One stored subscription. */
export interface StoredSubscription {
  readonly queryId: string;
  readonly subscriptionId: string;
  readonly query: SubscriptionQuery;
  readonly sessionToken?: string;
}

interface SubscriptionRow {
  query_id: string;
  installation_id: string;
  query: SubscriptionQuery;
  session_token: string | null;
}

function fromRow(r: SubscriptionRow): StoredSubscription {
  const base = { queryId: r.query_id, subscriptionId: r.installation_id, query: r.query };
  return r.session_token ? { ...base, sessionToken: r.session_token } : base;
}

/** A notification sent by the statement that stores a subscription (delivered at its commit). */
export interface Announcement {
  readonly channel: string;
  readonly payload: string;
}

/**
 * Stores (or refreshes) a subscription in one statement (one round trip, atomic): the client
 * row is created when the client has not connected yet, so that an unused subscription expires
 * with its client, and `announce` tells the other processes (a SELECT in WITH runs only when
 * referenced: the result is read FROM it). Returns how many subscriptions the
 * client now has: the statement's snapshot does not see its own insert, so a new subscription
 * (`xmax = 0`: inserted, not updated on conflict) is added to the count it reads.
 */
export async function saveSubscription(app: AppContext, sub: StoredSubscription, announce: Announcement): Promise<number> {
  const [{ n }] = await app.db.query<{ n: number }>(sql`WITH client AS (
      INSERT INTO _larder_lq_clients (installation_id) VALUES (${sub.subscriptionId}) ON CONFLICT (installation_id) DO NOTHING
    ), saved AS (
      INSERT INTO _larder_lq_subscriptions (query_id, installation_id, class_name, query, session_token)
      VALUES (${sub.queryId}, ${sub.subscriptionId}, ${sub.query.className}, ${JSON.stringify(sub.query)}::jsonb, ${sub.sessionToken ?? null})
      ON CONFLICT (query_id) DO UPDATE SET session_token = EXCLUDED.session_token
      RETURNING (xmax = 0) AS inserted
    ), announced AS (
      SELECT pg_notify(${announce.channel}, ${announce.payload})
    )
    SELECT ((SELECT count(*) FROM _larder_lq_subscriptions WHERE installation_id = ${sub.subscriptionId})
      + (SELECT count(*) FROM saved WHERE inserted))::int AS n
    FROM announced`);
  return n;
}

/** Removes one subscription of a client; true when it existed. */
export async function deleteSubscription(app: AppContext, subscriptionId: string, queryId: string): Promise<boolean> {
  const rows = await app.db.query(sql`DELETE FROM _larder_lq_subscriptions WHERE query_id = ${queryId} AND installation_id = ${subscriptionId} RETURNING 1`);
  return rows.length > 0;
}

/** Every subscription of the app (a process's registry at start and after a lost listener). */
export async function loadAllSubscriptions(db: Queryable): Promise<StoredSubscription[]> {
  const rows = await db.query<SubscriptionRow>(sql`SELECT query_id, installation_id, query, session_token FROM _larder_lq_subscriptions`);
  return rows.map(fromRow);
}

/** The stored state of some subscriptions (absent ids were removed). */
export async function loadSubscriptions(db: Queryable, queryIds: readonly string[]): Promise<StoredSubscription[]> {
  if (queryIds.length === 0) return [];
  const rows = await db.query<SubscriptionRow>(sql`SELECT query_id, installation_id, query, session_token FROM _larder_lq_subscriptions WHERE query_id = ANY(${[...queryIds]}::text[])`);
  return rows.map(fromRow);
}

/** Records that this process now holds the client's connection. */
export async function clientConnected(app: AppContext, subscriptionId: string, processId: string): Promise<void> {
  await app.db.query(sql`INSERT INTO _larder_lq_clients (installation_id, process_id, seen_at) VALUES (${subscriptionId}, ${processId}, now())
    ON CONFLICT (installation_id) DO UPDATE SET process_id = EXCLUDED.process_id, seen_at = now()`);
}

/** Records that the client left this process: its reconnect window starts now. */
export async function clientDisconnected(app: AppContext, subscriptionId: string, processId: string): Promise<void> {
  await app.db.query(sql`UPDATE _larder_lq_clients SET process_id = NULL, seen_at = now() WHERE installation_id = ${subscriptionId} AND process_id = ${processId}`);
}
