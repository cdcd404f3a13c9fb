import { sql } from '../../sql/fragment.ts';
import type { Database } from '../../storage/database.ts';

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

const ready = new WeakMap<Database, Promise<void>>();

async function create(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${'larder.statuses.tables.' + db.schema}))`);
    for (const s of STATEMENTS) await tx.query(s);
  });
}

/** Creates the inbox table once per database handle (retried after a failure). */
export function ensureInboxTable(db: Database): Promise<void> {
  let p = ready.get(db);
  if (!p) {
    p = create(db);
    p.catch(() => ready.delete(db));
    ready.set(db, p);
  }
  return p;
}
