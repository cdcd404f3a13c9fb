import { sql, moduleTables } from '../../../module-api/data.ts';

/**
 * The friends module's own tables, created idempotently (no core migration: the core never
 * knows about modules). One advisory lock serialises the DDL, because two processes starting
 * together would otherwise race on CREATE TABLE IF NOT EXISTS (a duplicate pg_type row).
 *
 * - `_larder_presence_config`: one row (id 1) of base-info: flags and declared fields.
 * - `_larder_presence_lang`: lang-info, one row per (field key, lang).
 * - `_larder_presence`: each user's current presence values and the times of its last set and
 *   clear (the rate limit of §7.4).
 * - `_larder_friend_processes`: every process serving friends WebSockets, with its lease.
 * - `_larder_online`: which process holds at least one connection of which user.
 */
const STATEMENTS = [
  sql`CREATE TABLE IF NOT EXISTS _larder_presence_config (
     id int PRIMARY KEY CHECK (id = 1),
     rich_msg boolean NOT NULL,
     online_msg boolean NOT NULL,
     fields jsonb NOT NULL)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_presence_lang (
     field text NOT NULL,
     lang text NOT NULL,
     content jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (field, lang))`,
  sql`CREATE TABLE IF NOT EXISTS _larder_presence (
     user_id text PRIMARY KEY,
     fields jsonb NOT NULL DEFAULT '{}'::jsonb,
     set_at timestamptz,
     cleared_at timestamptz)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_friend_processes (
     process_id text PRIMARY KEY,
     lease_until timestamptz NOT NULL)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_online (
     user_id text NOT NULL,
     process_id text NOT NULL,
     PRIMARY KEY (user_id, process_id))`,
  sql`CREATE INDEX IF NOT EXISTS _larder_online_process ON _larder_online (process_id)`,
];

/** Creates the presence and online tables once per database handle. */
export const ensurePresenceTables = moduleTables('friends', STATEMENTS);
