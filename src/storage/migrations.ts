import type { Database } from './database.ts';
import { sql, staticText } from '../sql/fragment.ts';
import { createClassTable } from './class-table.ts';
import { SQL_FUNCTIONS } from './sql-functions.ts';

/** One schema change; `up` runs inside a transaction and never runs twice. */
interface Migration {
  version: number;
  name: string;
  up: string[];
}

function render(statements: ReturnType<typeof createClassTable>): string[] {
  // DDL for fixed, validated class names: rendered without parameters (DDL takes none).
  return statements.map((s) => {
    const q = s.toQuery();
    if (q.values.length) throw new Error('DDL must not take parameters');
    return q.text;
  });
}

/** The migrations, in order. Append only: a released migration is never edited. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'catalogue, relations, meta and system classes',
    up: [
      `CREATE TABLE IF NOT EXISTS _larder_meta (key text PRIMARY KEY, value jsonb NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS _larder_classes (
         name text PRIMARY KEY,
         fields jsonb NOT NULL DEFAULT '{}'::jsonb,
         permissions jsonb,
         indexes jsonb NOT NULL DEFAULT '[]'::jsonb,
         created_at timestamptz NOT NULL DEFAULT now())`,
      `CREATE TABLE IF NOT EXISTS _larder_relations (
         owner_class text NOT NULL, owner_id text NOT NULL, key text NOT NULL,
         target_class text NOT NULL, target_id text NOT NULL,
         PRIMARY KEY (owner_class, owner_id, key, target_id))`,
      `CREATE INDEX IF NOT EXISTS _larder_relations_target ON _larder_relations (target_class, target_id)`,
      ...['_User', '_Role', '_File'].flatMap((c) => [
        ...render(createClassTable(c)),
        `INSERT INTO _larder_classes (name) VALUES ('${c}') ON CONFLICT DO NOTHING`,
      ]),
    ],
  },
  { version: 2, name: 'jsonb path functions', up: [...SQL_FUNCTIONS] },
  {
    version: 3,
    name: 'users: unique username/email/phone/session token, authData bindings, login failures',
    up: [
      // Uniqueness is the database's job, so that concurrent sign-ups race on an index, never on
      // a check in JS; src/users/unique-violation.ts maps each index name to 202/203/214.
      `CREATE UNIQUE INDEX IF NOT EXISTS "_User_unique_username" ON "_User" ((data->>'username'))`,
      `CREATE UNIQUE INDEX IF NOT EXISTS "_User_unique_email" ON "_User" ((data->>'email'))`,
      `CREATE UNIQUE INDEX IF NOT EXISTS "_User_unique_mobilePhoneNumber" ON "_User" ((data->>'mobilePhoneNumber'))`,
      `CREATE UNIQUE INDEX IF NOT EXISTS "_User_unique_sessionToken" ON "_User" ((data->>'sessionToken'))`,
      // One platform account binds to at most one user (authData.<platform>.uid).
      `CREATE TABLE IF NOT EXISTS _larder_auth_bindings (
         platform text NOT NULL, uid text NOT NULL, user_id text NOT NULL,
         PRIMARY KEY (platform, uid))`,
      `CREATE INDEX IF NOT EXISTS _larder_auth_bindings_user ON _larder_auth_bindings (user_id)`,
      // Consecutive failed logins: 'recent' holds the newest failure times (at most 7), 'verdict'
      // the lock decision of the latest attempt (src/users/login-lock.ts).
      `CREATE TABLE IF NOT EXISTS _larder_login_failures (
         user_id text PRIMARY KEY, failures int NOT NULL, last_failure timestamptz NOT NULL,
         recent timestamptz[] NOT NULL, verdict text NOT NULL)`,
    ],
  },
  {
    version: 4,
    name: 'roles: unique names, membership index; class default ACL; _User find off',
    up: [
      // One role per name; concurrent creates race on this index, not on a check in JS (137).
      `CREATE UNIQUE INDEX IF NOT EXISTS "_Role_name" ON "_Role" ((data->>'name'))`,
      // Principal resolution walks role membership from the member side (user or child role).
      `CREATE INDEX IF NOT EXISTS _larder_relations_role_members ON _larder_relations (target_id, key) WHERE owner_class = '_Role'`,
      `ALTER TABLE _larder_classes ADD COLUMN IF NOT EXISTS default_acl jsonb`,
      // Declared up front so that where={"users": <Pointer>} compiles to membership even
      // before the first role exists (or when roles were imported).
      `UPDATE _larder_classes SET fields = '{"name":{"type":"String"},"users":{"type":"Relation","className":"_User"},"roles":{"type":"Relation","className":"_Role"}}'::jsonb || fields WHERE name = '_Role'`,
      // New apps: nobody but the master key may query _User (leancloud-behaviour §3.3).
      `UPDATE _larder_classes SET permissions = '{"find":{"users":[],"roles":[]}}'::jsonb WHERE name = '_User' AND permissions IS NULL`,
    ],
  },
  {
    version: 5,
    name: 'mail links and SMS codes: single-use secrets, stored hashed',
    up: [
      // Links of verification and password-reset mails (src/mail/mail-tokens.ts). Only the sha256
      // of a token is stored; `email` is the address a verification link was sent to, so that a
      // link stops verifying anything once the user's email changes.
      `CREATE TABLE IF NOT EXISTS _larder_tokens (
         token_hash text PRIMARY KEY, kind text NOT NULL, user_id text NOT NULL, email text,
         created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, used_at timestamptz)`,
      `CREATE INDEX IF NOT EXISTS _larder_tokens_user ON _larder_tokens (user_id, kind)`,
      `CREATE INDEX IF NOT EXISTS _larder_tokens_email ON _larder_tokens (email, kind, created_at)`,
      // SMS codes (src/sms/sms-codes.ts): hashed, single-use, with a TTL and a count of wrong
      // guesses; the rows of the last day of a number are its send-rate history.
      `CREATE TABLE IF NOT EXISTS _larder_sms_codes (
         id bigserial PRIMARY KEY, phone text NOT NULL, code_hash text NOT NULL, purpose text NOT NULL,
         created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, used_at timestamptz,
         failures int NOT NULL DEFAULT 0)`,
      `CREATE INDEX IF NOT EXISTS _larder_sms_codes_phone ON _larder_sms_codes (phone, created_at)`,
      `CREATE INDEX IF NOT EXISTS _larder_sms_codes_code ON _larder_sms_codes (code_hash) WHERE used_at IS NULL`,
      // Wrong guesses of codes given without a number (src/sms/code-guard.ts), per window.
      `CREATE TABLE IF NOT EXISTS _larder_sms_guard (
         scope text PRIMARY KEY, window_start timestamptz NOT NULL, failures int NOT NULL)`,
    ],
  },
  {
    version: 6,
    name: 'data export jobs',
    up: [
      // Jobs of POST /1.1/exportData (src/export/export-jobs.ts). `progress` is the checkpoint a
      // resumed job starts from; `lease_owner`/`lease_until` make one process at a time run a job
      // and let another take it over when its runner dies. Only the sha256 of a download token
      // is stored.
      `CREATE TABLE IF NOT EXISTS _larder_export_jobs (
         id text PRIMARY KEY, status text NOT NULL, params jsonb NOT NULL,
         progress jsonb NOT NULL DEFAULT '{}'::jsonb, email text,
         token_hash text, archive_bytes bigint, expires_at timestamptz, reason text,
         lease_owner text, lease_until timestamptz, attempts int NOT NULL DEFAULT 0,
         created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, finished_at timestamptz)`,
      `CREATE INDEX IF NOT EXISTS _larder_export_jobs_status ON _larder_export_jobs (status, lease_until)`,
    ],
  },
  {
    version: 7,
    name: 'scheduled cloud functions and their runs',
    up: [
      // Cloud functions run by cron expression (src/cloud/schedules.ts). `next_run_at` is the
      // next tick; a process claims a tick by moving it forward (compare-and-set), and the unique
      // (schedule_id, tick) of the run log makes a tick run at most once whatever races.
      `CREATE TABLE IF NOT EXISTS _larder_schedules (
         id text PRIMARY KEY, function_name text NOT NULL, params jsonb NOT NULL DEFAULT '{}'::jsonb,
         cron text NOT NULL, timezone text NOT NULL, production boolean NOT NULL, enabled boolean NOT NULL,
         next_run_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS _larder_schedules_due ON _larder_schedules (next_run_at) WHERE enabled`,
      `CREATE TABLE IF NOT EXISTS _larder_schedule_runs (
         id bigserial PRIMARY KEY, schedule_id text NOT NULL, tick timestamptz NOT NULL, status text NOT NULL,
         started_at timestamptz NOT NULL, finished_at timestamptz, duration_ms int, error text, runner text NOT NULL,
         UNIQUE (schedule_id, tick))`,
    ],
  },
];

/**
 * Brings the database to the newest version. Several processes may start at once (workers,
 * replicas), so the whole run holds a transaction-scoped advisory lock.
 */
export async function migrate(db: Database): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(727272)`);
    await tx.query(sql`CREATE TABLE IF NOT EXISTS _larder_migrations (
      version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const rows = await tx.query<{ version: number }>(sql`SELECT version FROM _larder_migrations`);
    const done = new Set(rows.map((r) => r.version));
    // Rolling back means running an older Larder on the database; it must not run on tables a
    // newer version changed in ways it does not know (docs/backup.md#upgrades-and-rollbacks).
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    const ahead = [...done].filter((v) => v > newest);
    if (ahead.length) {
      throw new Error(`this database was migrated by a newer Larder (migration ${Math.max(...ahead)}; this version knows up to ${newest}). Run that newer version, or restore the backup taken before the upgrade (docs/backup.md).`);
    }
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      for (const statement of m.up) await tx.query(staticText(statement));
      await tx.query(sql`INSERT INTO _larder_migrations (version, name) VALUES (${m.version}, ${m.name})`);
      applied.push(m.version);
    }
    return applied;
  });
}
