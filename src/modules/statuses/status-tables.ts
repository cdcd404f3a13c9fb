import { sql, moduleTables } from '../../module-api/data.ts';

/**
 * The inboxes of the status module: one row per (owner, inbox type, status). `message_id` is
 * one increasing sequence, so an inbox reads newest first and pages with sinceId / maxId, as
 * LeanCloud's messageId did. The statuses themselves are objects of the built-in class
 * `_Status` (readable and queryable like any class).
 */
const STATEMENTS = [
  sql`CREATE TABLE IF NOT EXISTS _larder_status_inbox (
     message_id bigserial PRIMARY KEY,
     owner_id text NOT NULL,
     inbox_type text NOT NULL,
     status_id text NOT NULL,
     unread boolean NOT NULL DEFAULT true,
     created_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (owner_id, inbox_type, status_id))`,
  sql`CREATE INDEX IF NOT EXISTS _larder_status_inbox_owner ON _larder_status_inbox (owner_id, inbox_type, message_id)`,
  sql`CREATE INDEX IF NOT EXISTS _larder_status_inbox_status ON _larder_status_inbox (status_id)`,
];

/** Creates the inbox table once per database handle (retried after a failure). */
export const ensureInboxTable = moduleTables('statuses', STATEMENTS);
