import type { Database } from './database.ts';
import { sql, staticText } from '../sql/fragment.ts';
import { createClassTable } from './class-table.ts';
import { SQL_FUNCTIONS } from '../objects/sql-functions.ts';

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
