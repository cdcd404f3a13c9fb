import { ident, sql, type Sql } from '../sql/fragment.ts';

/**
 * DDL for one class table: fixed columns plus one jsonb document (design.md). rperm/wperm are
 * the principals allowed to read/write, kept beside the ACL so that ACL checks are one
 * GIN-indexable `&&` in SQL.
 */
export function createClassTable(name: string): Sql[] {
  const t = ident(name);
  return [
    sql`CREATE TABLE IF NOT EXISTS ${t} (
      "objectId" text PRIMARY KEY,
      "createdAt" timestamptz NOT NULL,
      "updatedAt" timestamptz NOT NULL,
      acl jsonb,
      rperm text[] NOT NULL,
      wperm text[] NOT NULL,
      data jsonb NOT NULL DEFAULT '{}'::jsonb
    )`,
    sql`CREATE INDEX IF NOT EXISTS ${ident(`${name}_rperm`)} ON ${t} USING gin (rperm)`,
    sql`CREATE INDEX IF NOT EXISTS ${ident(`${name}_createdAt`)} ON ${t} ("createdAt")`,
    sql`CREATE INDEX IF NOT EXISTS ${ident(`${name}_updatedAt`)} ON ${t} ("updatedAt")`,
  ];
}
