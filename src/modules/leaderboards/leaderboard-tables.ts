import { sql, moduleTables } from '../../module-api/data.ts';

/**
 * The leaderboard module's tables (the core never knows about them), created idempotently under
 * one advisory lock, as the friends module creates its own.
 *
 * - `_larder_leaderboards`: one row per leaderboard and its current version.
 * - `_larder_leaderboard_entries`: one row per (leaderboard, version, user). `sort_key` is the
 *   value for ascending boards and minus the value for descending ones, so one ascending index
 *   (`_larder_lb_rank`) serves every ranking query: top N, a user's rank (count of better
 *   entries), and the neighbours around a user. Equal values rank by who reached the value
 *   first (`reached_at`), then by user id, so ranks are total and stable.
 * - `_larder_leaderboard_archives`: one row per finished version (the CSV is made on download
 *   from the entries, which are kept until the archive is dropped).
 */
const STATEMENTS = [
  sql`CREATE TABLE IF NOT EXISTS _larder_leaderboards (
     name text PRIMARY KEY,
     object_id text NOT NULL,
     sort_order text NOT NULL,
     update_strategy text NOT NULL,
     version_change_interval text NOT NULL,
     version int NOT NULL DEFAULT 0,
     activated_at timestamptz NOT NULL,
     expired_at timestamptz,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_leaderboard_entries (
     name text NOT NULL,
     version int NOT NULL,
     user_id text NOT NULL,
     value float8 NOT NULL,
     sort_key float8 NOT NULL,
     reached_at timestamptz NOT NULL,
     PRIMARY KEY (name, version, user_id))`,
  sql`CREATE INDEX IF NOT EXISTS _larder_lb_rank ON _larder_leaderboard_entries (name, version, sort_key, reached_at, user_id)`,
  sql`CREATE INDEX IF NOT EXISTS _larder_lb_user ON _larder_leaderboard_entries (user_id)`,
  sql`CREATE TABLE IF NOT EXISTS _larder_leaderboard_archives (
     object_id text PRIMARY KEY,
     name text NOT NULL,
     version int NOT NULL,
     file_key text NOT NULL UNIQUE,
     activated_at timestamptz NOT NULL,
     deactivated_at timestamptz NOT NULL,
     created_at timestamptz NOT NULL,
     UNIQUE (name, version))`,
];

/** Creates the leaderboard tables once per database handle (retried after a failure). */
export const ensureLeaderboardTables = moduleTables('leaderboards', STATEMENTS);
