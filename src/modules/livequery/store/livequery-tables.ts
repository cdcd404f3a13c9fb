import { sql, moduleTables } from '../../../module-api/data.ts';

/**
 * The LiveQuery module's tables, created idempotently under one advisory lock (two processes
 * starting together would otherwise race on CREATE TABLE IF NOT EXISTS).
 *
 * - `_larder_lq_processes`: every process serving LiveQuery WebSockets, with its lease.
 * - `_larder_lq_clients`: one row per subscription id (the SDK's `installationId`): the process
 *   holding its connection (NULL while it is away) and since when it is away.
 * - `_larder_lq_subscriptions`: the subscribed queries, by `query_id`.
 * - `_larder_lq_events`: pushes not yet acknowledged by their client (the reconnect window).
 */
const STATEMENTS = [
  sql`CREATE TABLE IF NOT EXISTS _larder_lq_processes (
     process_id text PRIMARY KEY,
     lease_until timestamptz NOT NULL)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_lq_clients (
     installation_id text PRIMARY KEY,
     process_id text,
     seen_at timestamptz NOT NULL DEFAULT now())`,
  sql`CREATE INDEX IF NOT EXISTS _larder_lq_clients_process ON _larder_lq_clients (process_id)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_lq_subscriptions (
     query_id text PRIMARY KEY,
     installation_id text NOT NULL,
     class_name text NOT NULL,
     query jsonb NOT NULL,
     session_token text,
     created_at timestamptz NOT NULL DEFAULT now())`,
  sql`CREATE INDEX IF NOT EXISTS _larder_lq_subscriptions_client ON _larder_lq_subscriptions (installation_id)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_lq_events (
     seq bigserial PRIMARY KEY,
     installation_id text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     payload text NOT NULL)`,
  sql`CREATE INDEX IF NOT EXISTS _larder_lq_events_client ON _larder_lq_events (installation_id, seq)`,
  sql`CREATE INDEX IF NOT EXISTS _larder_lq_events_created ON _larder_lq_events (created_at)`,
];

/** Creates the LiveQuery tables once per database handle (retried after a failure). */
export const ensureLiveQueryTables = moduleTables('livequery', STATEMENTS);
